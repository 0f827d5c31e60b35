/**
 * Two builds under load at the same time: `node dist/main.js` of build A and of build B side by side, each with
 * `PAIR_CLIENTS` (10) clients turning back to back for `PAIR_SECONDS` (10) per round, `PAIR_ROUNDS` (5) rounds,
 * each round on fresh processes. Alternating windows (bench/turn-ab.ts) see a shared machine whose speed drifts by
 * 20–30 % from one window to the next; two processes in one window see the same machine, so the ratio of their
 * figures is what the change made of it. Per round and build: turns/s and CPU per turn of the process and of its
 * event-loop thread (from /proc), and the turns' overhead p50 (latency minus the time inside the model server); the table gives the medians and the median of the per-round ratios B / A.
 * Both share Postgres (a database each), Redis and the model server (bench/support/streaming-model-server.ts),
 * which this process runs with the clients. `AB_ENV_A` / `AB_ENV_B` and `AB_NODE_ARGS_A` / `AB_NODE_ARGS_B` as in
 * turn-ab.ts.
 *
 *   AB_A=/path/to/base/dist/main.js AB_B=dist/main.js node -r ./test/support/swc-register.js bench/turn-pair.ts
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { createTestDatabase, TEST_REDIS_URL, uniqueQueuePrefix } from '../test/support/infra';
import { cpuOf, percentile, round } from './lib';
import { StreamingModelServer } from './support/streaming-model-server';
import { startApi, turn } from './turn.bench';

const ROUNDS = Number(process.env.PAIR_ROUNDS ?? 5);
const CLIENTS = Number(process.env.PAIR_CLIENTS ?? 10);
const SECONDS = Number(process.env.PAIR_SECONDS ?? 10);

interface Figures {
  tps: number;
  api: number;
  loop: number;
  /** the turns' overhead p50: latency at the client minus the time inside the model server */
  overhead: number;
}

/** CPU seconds of a process's main thread (its event loop) */
function loopCpu(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

function settingsOf(label: string): Record<string, string> {
  const pairs = (process.env[`AB_ENV_${label}`] ?? '').split(' ').filter(Boolean);
  return Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
}

async function started(label: string, dbUrl: string, model: StreamingModelServer) {
  // startApi reads the build and its node flags from the environment when it spawns
  process.env.BENCH_API_MAIN = resolve(process.env[`AB_${label}`] ?? 'dist/main.js');
  process.env.BENCH_API_ARGS = process.env[`AB_NODE_ARGS_${label}`] ?? '';
  return startApi({
    DATABASE_URL: dbUrl,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: uniqueQueuePrefix(`pair${label}`),
    LLM_BASE_URL: model.baseUrl,
    LLM_MODEL: 'bench',
    LLM_MAX_RETRIES: '0',
    ...settingsOf(label),
  });
}

async function round1(model: StreamingModelServer, dbs: Record<'A' | 'B', string>, order: Array<'A' | 'B'>) {
  const apis = {
    A: undefined as Awaited<ReturnType<typeof startApi>> | undefined,
    B: undefined as Awaited<ReturnType<typeof startApi>> | undefined,
  };
  try {
    for (const label of order) apis[label] = await started(label, dbs[label], model);
    const both = order.map((l) => [l, apis[l]!] as const);
    // the same warm-up as turn-ab.ts: 100 sequential turns, then 10 rounds at the window's concurrency, both at once
    await Promise.all(
      both.map(async ([, api]) => {
        for (let i = 0; i < 100; i++) await turn(api.url, model);
        for (let i = 0; i < 10; i++) await Promise.all(Array.from({ length: CLIENTS }, () => turn(api.url, model)));
      }),
    );
    const start = both.map(([, api]) => ({ cpu: cpuOf(api.pid), loop: loopCpu(api.pid), done: 0, overheads: [] as number[] }));
    const t0 = performance.now();
    const end = t0 + SECONDS * 1000;
    await Promise.all(
      both.flatMap(([, api], i) =>
        Array.from({ length: CLIENTS }, async () => {
          while (performance.now() < end) {
            const sample = await turn(api.url, model);
            start[i].done++;
            start[i].overheads.push(sample.total - sample.model);
          }
        }),
      ),
    );
    const secs = (performance.now() - t0) / 1000;
    const out = {} as Record<'A' | 'B', Figures>;
    both.forEach(([label, api], i) => {
      const s = start[i];
      out[label] = {
        tps: s.done / secs,
        api: ((cpuOf(api.pid) - s.cpu) * 1000) / s.done,
        loop: ((loopCpu(api.pid) - s.loop) * 1000) / s.done,
        overhead: percentile(s.overheads, 50),
      };
    });
    return out;
  } finally {
    await Promise.all(Object.values(apis).map((api) => api?.stop()));
  }
}

async function main(): Promise<void> {
  const model = new StreamingModelServer();
  await model.start();
  const dbA = await createTestDatabase('turnpaira');
  const dbB = await createTestDatabase('turnpairb');
  const rounds: Array<Record<'A' | 'B', Figures>> = [];
  try {
    for (let r = 0; r < ROUNDS; r++) {
      const figures = await round1(model, { A: dbA.url, B: dbB.url }, r % 2 ? ['B', 'A'] : ['A', 'B']);
      rounds.push(figures);
      const f = (x: Figures) =>
        `${round(x.tps, 1)} turns/s, api ${round(x.api, 2)} (loop ${round(x.loop, 2)}) ms/turn, overhead p50 ${round(x.overhead, 2)} ms`;
      process.stderr.write(`round ${r + 1}: A ${f(figures.A)} | B ${f(figures.B)}\n`);
    }
  } finally {
    await model.stop();
    await dbA.drop();
    await dbB.drop();
  }
  const med = (pick: (f: Record<'A' | 'B', Figures>) => number) => round(percentile(rounds.map(pick), 50), 3);
  const rows: Array<[string, keyof Figures]> = [
    ['turns/s', 'tps'],
    ['API CPU ms/turn', 'api'],
    ['event-loop thread CPU ms/turn', 'loop'],
    ['overhead p50, ms', 'overhead'],
  ];
  console.log(`| ${CLIENTS} clients each, ${SECONDS} s windows, ${ROUNDS} rounds | A | B | B / A (median of rounds) |`);
  console.log('|---|---|---|---|');
  for (const [name, key] of rows)
    console.log(`| ${name} | ${med((f) => f.A[key])} | ${med((f) => f.B[key])} | ${med((f) => f.B[key] / f.A[key])} |`);
  console.log(`\nA: ${process.env.AB_A ?? 'dist/main.js'}; B: ${process.env.AB_B ?? 'dist/main.js'}`);
}

void main();
