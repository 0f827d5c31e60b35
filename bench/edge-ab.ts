/**
 * A/B of the HTTP edge alone, back to back on a shared machine: `node dist/main.js` of build A and of build B,
 * started in turn (`AB_ROUNDS` rounds of `AB_REQUESTS` sequential requests per kind after a warm-up), Postgres +
 * Redis, no model. Per build and kind, the API's CPU per request from /proc: `live` (GET /health/live, the
 * middleware chain and Nest's router), `refused` (POST /v1/chat with a body zod refuses: every check of the edge,
 * the JSON parser, validation and the exception filter, but no turn). The edge of a real turn is close to
 * `refused` (bench/turn-ab.ts prices the whole turn).
 *
 *   AB_A=/path/to/a/dist/main.js AB_B=dist/main.js node -r ./test/support/swc-register.js bench/edge-ab.ts
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { createTestDatabase, TEST_REDIS_URL, uniqueQueuePrefix } from '../test/support/infra';
import { percentile, round } from './lib';
import { startApi } from './turn.bench';

const ROUNDS = Number(process.env.AB_ROUNDS ?? 3);
const REQUESTS = Number(process.env.AB_REQUESTS ?? 3000);

function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const KINDS: Record<string, (url: string) => Promise<number>> = {
  live: async (url) => {
    const res = await fetch(`${url}/health/live`);
    await res.arrayBuffer();
    return res.status;
  },
  refused: async (url) => {
    const res = await fetch(`${url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'What is 12 times 7?', agent: 'react', unknown_field: true }),
    });
    await res.arrayBuffer();
    return res.status;
  },
};
const EXPECTED: Record<string, number> = { live: 200, refused: 400 };

/** CPU µs per request of each kind, for one start of the build */
async function oneRound(main: string, dbUrl: string): Promise<Record<string, number>> {
  process.env.BENCH_API_MAIN = main;
  process.env.BENCH_API_ARGS = process.env.AB_NODE_ARGS ?? '';
  const api = await startApi({ DATABASE_URL: dbUrl, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: uniqueQueuePrefix('edgeab') });
  try {
    const out: Record<string, number> = {};
    for (const [kind, send] of Object.entries(KINDS)) {
      for (let i = 0; i < 500; i++) await send(api.url);
      const cpu0 = cpuSeconds(api.pid);
      for (let i = 0; i < REQUESTS; i++) {
        const status = await send(api.url);
        if (status !== EXPECTED[kind]) throw new Error(`${kind}: unexpected status ${status}`);
      }
      out[kind] = ((cpuSeconds(api.pid) - cpu0) * 1e6) / REQUESTS;
    }
    return out;
  } finally {
    await api.stop();
  }
}

async function main(): Promise<void> {
  const builds: Array<[string, string]> = [
    ['A', resolve(process.env.AB_A ?? 'dist/main.js')],
    ['B', resolve(process.env.AB_B ?? 'dist/main.js')],
  ];
  const db = await createTestDatabase('edgeab');
  const results = new Map<string, Array<Record<string, number>>>(builds.map(([l]) => [l, []]));
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (const [label, main] of r % 2 ? [...builds].reverse() : builds) {
        const res = await oneRound(main, db.url);
        results.get(label)!.push(res);
        process.stderr.write(
          `round ${r + 1} ${label}: ${Object.entries(res)
            .map(([k, v]) => `${k} ${round(v, 0)} µs`)
            .join(', ')}\n`,
        );
      }
    }
  } finally {
    await db.drop();
  }
  const kinds = Object.keys(KINDS);
  const lines = [
    `| build | ${kinds.map((k) => `${k}: CPU µs/request, median (rounds)`).join(' | ')} |`,
    `|---|${kinds.map(() => '---|').join('')}`,
  ];
  for (const [label, main] of builds) {
    const rs = results.get(label)!;
    const cells = kinds.map((k) => {
      const v = rs.map((x) => x[k]);
      return `${round(percentile(v, 50), 0)} (${v.map((c) => round(c, 0)).join(', ')})`;
    });
    lines.push(`| ${label} (${main}) | ${cells.join(' | ')} |`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
