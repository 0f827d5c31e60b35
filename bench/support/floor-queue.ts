/**
 * The floor under the queued-runs target: a bare BullMQ `Worker` (CONCURRENCY, QUEUE_PREFIX, REDIS_URL) whose
 * jobs each run the floor graph (floor-stack.ts) on a thread of their own with the official `PostgresSaver` (DB_URL)
 * and durability `async` — a checkpoint per step, as this service's queued runs — against MODEL_URL. No API, run
 * records, events, leases, usage or logging. Prints `ready` once it takes jobs; exits on SIGTERM.
 */
import { Worker } from 'bullmq';

import { floorGraph } from './floor-stack';

async function main(): Promise<void> {
  // the bench created the saver's tables
  const { graph, saver } = await floorGraph(process.env.MODEL_URL!, 'postgres', process.env.DB_URL, false);
  const url = new URL(process.env.REDIS_URL!);
  const worker = new Worker(
    'floor',
    async (job) => {
      const input = { messages: [{ role: 'user', content: 'What is 12 times 7?' }] };
      const out = await graph.invoke(input, { configurable: { thread_id: `floor-${job.id}` }, durability: 'async' });
      if (out.messages.length !== 4) throw new Error(`unexpected run: ${out.messages.length} messages`);
    },
    {
      connection: { host: url.hostname, port: Number(url.port || 6379) },
      prefix: process.env.QUEUE_PREFIX,
      concurrency: Number(process.env.CONCURRENCY ?? 10),
    },
  );
  await worker.waitUntilReady();
  process.stdout.write('ready\n');
  process.once(
    'SIGTERM',
    () =>
      void worker
        .close()
        .then(() => saver?.end())
        .then(() => process.exit(0)),
  );
}

void main();
