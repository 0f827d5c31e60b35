/**
 * The scripted model server in a process of its own, as a hosted model is: the bench's client work (a burst of
 * POSTs, polling) does not delay its replies. Every turn asks for the calculator once, then answers with the
 * tool's result; LATENCY_MS before each reply. Prints its base URL once listening; exits on SIGTERM.
 */
import { ScriptedModelServer } from '../../test/support/model-server';

async function main(): Promise<void> {
  const model = new ScriptedModelServer();
  model.latencyMs = Number(process.env.LATENCY_MS ?? 0);
  model.setResponder((req) => {
    const last = req.messages[req.messages.length - 1];
    if (last?.role === 'tool') return { content: `The result is ${last.content}.` };
    return { toolCalls: [{ name: 'calculator', args: { expression: '12*7' } }] };
  });
  process.stdout.write(`${await model.start()}\n`);
  process.once('SIGTERM', () => void model.stop().then(() => process.exit(0)));
}

void main();
