/**
 * The streaming model server (`streaming-model-server.ts`) in a process of its own, as a hosted model is: the
 * bench's own work does not delay its replies, and its CPU is read apart from the service's. Every turn asks for
 * the calculator once, then answers. CALL_MS (500) per call: the first chunk after TTFT_MS (300), the other
 * chunks spread evenly over the rest; ANSWER_TOKENS (20) in an answer. Prints its base URL once listening; on
 * SIGTERM prints one JSON line — the calls it served, how many were streamed, their time p50 — and exits.
 */
import { StreamingModelServer } from './streaming-model-server';

async function main(): Promise<void> {
  const model = new StreamingModelServer();
  model.behaviour = {
    ttftMs: Number(process.env.TTFT_MS ?? 300),
    tokensPerSecond: 0,
    answerTokens: Number(process.env.ANSWER_TOKENS ?? 20),
    callMs: Number(process.env.CALL_MS ?? 500),
  };
  process.stdout.write(`${await model.start()}\n`);
  process.once('SIGTERM', () => {
    const ms = model.served.map((s) => s.ms).sort((a, b) => a - b);
    const stats = { calls: ms.length, streamed: model.served.filter((s) => s.streamed).length, p50Ms: ms[Math.floor(ms.length / 2)] ?? 0 };
    process.stdout.write(`${JSON.stringify(stats)}\n`, () => void model.stop().then(() => process.exit(0)));
  });
}

void main();
