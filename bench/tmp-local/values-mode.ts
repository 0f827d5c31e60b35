import { ChatOpenAI } from '@langchain/openai';
import { tool } from '@langchain/core/tools';
import { evaluate } from 'mathjs';
import { z } from 'zod';
import { MemorySaver } from '@langchain/langgraph';
import { buildReactGraph } from '../../src/agents/react/graph';
import { turnInput } from '../../src/agents/react/state';
import { StreamingModelServer } from '../../bench/support/streaming-model-server';

async function main() {
  const model = new StreamingModelServer();
  await model.start();
  const calculator = tool(async ({ expression }: { expression: string }) => String(evaluate(expression)), {
    name: 'calculator', description: 'Evaluates an arithmetic expression', schema: z.object({ expression: z.string() }),
  });
  const chat = new ChatOpenAI({ model: 'bench', apiKey: 'bench', configuration: { baseURL: model.baseUrl }, maxRetries: 0 });
  const graph = buildReactGraph({ model: () => chat, tools: [calculator], toolCalling: () => 'native' }, new MemorySaver());
  let n = 0;
  const run = async (modes: string[]) => {
    const input = turnInput({ message: `What is 12 times 7? (turn ${++n})` }, { maxIterations: 5 });
    const s = await graph.stream(input, { configurable: { thread_id: `t${n}` }, streamMode: modes as any, durability: 'exit' });
    let k = 0; for await (const _ of s) k++;
    return k;
  };
  const measure = async (modes: string[], turns: number) => {
    const c0 = process.cpuUsage();
    for (let i = 0; i < turns; i++) await run(modes);
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / 1000 / turns;
  };
  for (let i = 0; i < 100; i++) { await run(['updates', 'values']); await run(['updates']); }
  const a: number[] = [], b: number[] = [];
  for (let r = 0; r < 6; r++) { a.push(await measure(['updates', 'values'], 150)); b.push(await measure(['updates'], 150)); }
  const med = (x: number[]) => [...x].sort((p, q) => p - q)[Math.floor(x.length / 2)];
  console.log('updates+values', med(a).toFixed(2), a.map((x) => x.toFixed(2)).join(' '));
  console.log('updates only  ', med(b).toFixed(2), b.map((x) => x.toFixed(2)).join(' '));
  await model.stop?.();
  process.exit(0);
}
void main();
