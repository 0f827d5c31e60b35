/**
 * A/B of the react turn, back to back on a shared machine: `node dist/main.js` of build A and of build B, started
 * in turn (`AB_ROUNDS` rounds, `AB_TURNS` sequential turns each after 50 warm-up turns), Postgres + Redis.
 * Per build: API CPU per turn (from /proc, load-robust), overhead p50, and the SQL statements (round trips) per turn
 * counted by bench/support/count-queries.js (`AB_COUNT=0`: not loaded, e.g. for a profile without it); the
 * statements of one turn are printed with `AB_STATEMENTS=1`. `AB_NODE_ARGS` adds node flags (`--cpu-prof …`).
 * `AB_SESSION=pairs`: every second turn continues the session of the turn before it (a session's second turn reads
 * its checkpoint and its taint record), so the figures are the mean of a first and a second turn.
 *
 *   AB_A=/path/to/a/dist/main.js AB_B=dist/main.js node -r ./test/support/swc-register.js bench/turn-ab.ts
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { createTestDatabase, TEST_REDIS_URL, uniqueQueuePrefix } from '../test/support/infra';
import { percentile, round } from './lib';
import { StreamingModelServer } from './support/streaming-model-server';
import { startApi, turn, type TurnSample } from './turn.bench';

const ROUNDS = Number(process.env.AB_ROUNDS ?? 3);
const TURNS = Number(process.env.AB_TURNS ?? 100);
const COUNTER = resolve(__dirname, 'support', 'count-queries.js');

interface Round {
  cpuMs: number;
  overheadP50: number;
  statements: number;
  byStatement: Record<string, number>;
}

type Snapshot = { total: number; byStatement: Record<string, number> };

async function snapshot(file: string): Promise<Snapshot> {
  if (process.env.AB_COUNT === '0') return { total: 0, byStatement: {} };
  await new Promise((r) => setTimeout(r, 300)); // the counter writes every 100 ms
  return JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
}

function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

let seq = 0;

/** One react turn, in a new session or continuing `sessionId`; throws unless it was answered. */
async function chatTurn(
  url: string,
  model: StreamingModelServer,
  sessionId?: string,
): Promise<Pick<TurnSample, 'total' | 'model'> & { sessionId?: string }> {
  const served = model.served.length;
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      message: `What is 12 times 7? (turn ${++seq})`,
      agent: 'react',
      ...(sessionId ? { session_id: sessionId } : {}),
    }),
  });
  const body = (await res.json()) as { response?: string; session_id?: string };
  const total = performance.now() - t0;
  // a session's second turn may be answered without the model (the LLM cache): the store path is what is measured
  if (res.status !== 200 || !body.response) throw new Error(`unexpected turn: ${res.status} ${JSON.stringify(body)}`);
  return { total, model: model.served.slice(served).reduce((sum, r) => sum + r.ms, 0), sessionId: body.session_id };
}

/** A turn of the round: a new session, or with AB_SESSION=pairs every second one the session of the turn before. */
async function roundTurn(url: string, model: StreamingModelServer, i: number, last: { sessionId?: string }) {
  if (process.env.AB_SESSION !== 'pairs') return turn(url, model);
  const s = await chatTurn(url, model, i % 2 === 1 ? last.sessionId : undefined);
  last.sessionId = s.sessionId;
  return s;
}

/** `AB_ENV_A` / `AB_ENV_B`: settings for one build only (`"LLM_CACHE=false REDIS_URL="`), to price a setting */
function envOf(label: string): Record<string, string> {
  const pairs = (process.env[`AB_ENV_${label}`] ?? '').split(' ').filter(Boolean);
  return Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
}

async function oneRound(main: string, dbUrl: string, model: StreamingModelServer, label: string): Promise<Round> {
  const countFile = join(tmpdir(), `turn-ab-${label}-${process.pid}.json`);
  process.env.BENCH_API_MAIN = main;
  const counting = process.env.AB_COUNT !== '0';
  process.env.BENCH_API_ARGS = [...(counting ? ['-r', COUNTER] : []), process.env.AB_NODE_ARGS ?? ''].join(' ').trim();
  const api = await startApi({
    DATABASE_URL: dbUrl,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: uniqueQueuePrefix('turnab'),
    LLM_BASE_URL: model.baseUrl,
    LLM_MODEL: 'bench',
    LLM_MAX_RETRIES: '0',
    QUERY_COUNT_FILE: countFile,
    ...envOf(label),
  });
  try {
    for (let i = 0; i < 50; i++) await turn(api.url, model);
    const before = await snapshot(countFile);
    const cpu0 = cpuSeconds(api.pid);
    const overheads: number[] = [];
    const last: { sessionId?: string } = {};
    for (let i = 0; i < TURNS; i++) {
      const s = await roundTurn(api.url, model, i, last);
      overheads.push(s.total - s.model);
    }
    const cpu = cpuSeconds(api.pid) - cpu0;
    const after = await snapshot(countFile);
    const byStatement: Record<string, number> = {};
    for (const [k, v] of Object.entries(after.byStatement)) {
      const d = v - (before.byStatement[k] ?? 0);
      if (d) byStatement[k] = d / TURNS;
    }
    return {
      cpuMs: (cpu * 1000) / TURNS,
      overheadP50: percentile(overheads, 50),
      statements: (after.total - before.total) / TURNS,
      byStatement,
    };
  } finally {
    await api.stop();
  }
}

async function main(): Promise<void> {
  const builds: Array<[string, string]> = [
    ['A', resolve(process.env.AB_A ?? 'dist/main.js')],
    ['B', resolve(process.env.AB_B ?? 'dist/main.js')],
  ];
  const model = new StreamingModelServer();
  await model.start();
  model.behaviour = { ttftMs: 0, tokensPerSecond: 0, answerTokens: 20 };
  const db = await createTestDatabase('turnab');
  const results = new Map<string, Round[]>(builds.map(([l]) => [l, []]));
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (const [label, main] of r % 2 ? [...builds].reverse() : builds) {
        const res = await oneRound(main, db.url, model, label);
        results.get(label)!.push(res);
        process.stderr.write(
          `round ${r + 1} ${label}: ${round(res.cpuMs, 2)} ms CPU/turn, overhead p50 ${round(res.overheadP50, 2)} ms, ${res.statements} statements/turn\n`,
        );
      }
    }
  } finally {
    await model.stop();
    await db.drop();
  }
  const lines = ['| build | CPU per turn, median (rounds) | overhead p50, median | SQL statements per turn |', '|---|---|---|---|'];
  for (const [label, main] of builds) {
    const rs = results.get(label)!;
    const cpus = rs.map((x) => x.cpuMs);
    lines.push(
      `| ${label} (${main}) | ${round(percentile(cpus, 50), 2)} ms (${cpus.map((c) => round(c, 1)).join(', ')}) | ${round(
        percentile(
          rs.map((x) => x.overheadP50),
          50,
        ),
        2,
      )} ms | ${rs[0].statements} |`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  if (process.env.AB_STATEMENTS) {
    for (const [label] of builds) {
      process.stdout.write(`\nStatements of one turn, build ${label}:\n\n| per turn | statement |\n|---|---|\n`);
      const by = results.get(label)![0].byStatement;
      for (const [k, v] of Object.entries(by).sort((a, b) => b[1] - a[1]))
        process.stdout.write(`| ${round(v, 2)} | \`${k.replace(/\|/g, '\\|')}\` |\n`);
    }
  }
}

void main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${String(err?.stack ?? err)}\n`);
    process.exit(1);
  },
);
