/**
 * `npm run bench:cores`: the react turn at 10 clients (`POST /v1/chat`, the `turn` section's throughput row) with
 * `WEB_CONCURRENCY` = each of CORES_STEPS (default `1,2`) in turn, CORES_ROUNDS (3) rounds alternating, so the
 * steps share the machine's other load alike. Each window (CORES_SECONDS, 15) reports turns/s and where the CPU
 * went, in % of one core, from /proc: the cluster's primary, each API process, this database's Postgres backends,
 * Redis (INFO cpu, the whole server), this process (the 10 clients and the streaming model server, as in the turn
 * bench) and the machine (/proc/stat).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

import IORedis from 'ioredis';
import { Client } from 'pg';

import { createTestDatabase, TEST_REDIS_URL, uniqueQueuePrefix } from '../test/support/infra';
import { childrenOf, cpuOf, percentile, round, table } from './lib';
import { StreamingModelServer } from './support/streaming-model-server';
import { startApi, turn } from './turn.bench';

const CLIENTS = Number(process.env.CORES_CLIENTS ?? 10);
/**
 * `N` API processes (this tree's dist/main.js), `NxC` with C clients instead of CORES_CLIENTS, `…:path/to/main.js`
 * another build (A/B runs back to back).
 */
const STEPS = (process.env.CORES_STEPS ?? '1,2').split(',').map((step) => {
  const [size, main] = step.split(':');
  const [n, c] = size.split('x');
  return { processes: Number(n), clients: Number(c ?? CLIENTS), main };
});
const ROUNDS = Number(process.env.CORES_ROUNDS ?? 3);
const SECONDS = Number(process.env.CORES_SECONDS ?? 15);
const EXTRA_ENV = Object.fromEntries(
  (process.env.CORES_ENV ?? '')
    .split(' ')
    .filter(Boolean)
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);

interface Window {
  processes: number;
  clients: number;
  build: string;
  tps: number;
  p50: number;
  cpu: { primary: number; api: number[]; postgres: number; redis: number; bench: number; machine: number };
  /** the clients' connections each API process holds at the window's end */
  connections: number[];
}

/** Established TCP connections on `port` (this host's side) held by each of `pids`, from /proc/net/tcp and fds. */
function connectionsOf(pids: number[], port: number): number[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length > 9 && f[1].endsWith(`:${hexPort}`) && f[3] === '01') inodes.add(f[9]);
    }
  }
  return pids.map((pid) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).filter((fd) => {
        try {
          return inodes.has(/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? '');
        } catch {
          return false;
        }
      }).length;
    } catch {
      return 0;
    }
  });
}

function machineBusy(): number {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return (cpu.reduce((s, n) => s + n, 0) - cpu[3] - cpu[4]) / 100;
}

async function window(
  dbUrl: string,
  dbName: string,
  model: StreamingModelServer,
  { processes, clients, main }: { processes: number; clients: number; main?: string },
): Promise<Window> {
  if (main) process.env.BENCH_API_MAIN = main;
  else delete process.env.BENCH_API_MAIN;
  const api = await startApi({
    DATABASE_URL: dbUrl,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: uniqueQueuePrefix('cores'),
    LLM_BASE_URL: model.baseUrl,
    LLM_MODEL: 'bench',
    LLM_MAX_RETRIES: '0',
    WEB_CONCURRENCY: String(processes),
    ...EXTRA_ENV,
  });
  const sampler = new Client({ connectionString: dbUrl });
  await sampler.connect();
  const redis = new IORedis(TEST_REDIS_URL);
  try {
    // the cluster's processes listen one after the other: warm every one (each takes connections in turn)
    for (let i = 0; i < 20 * processes; i++) await Promise.all(Array.from({ length: clients }, () => turn(api.url, model)));
    const children = processes > 1 ? childrenOf(api.pid) : [];
    const apiPids = processes > 1 ? children : [api.pid];
    const pgPids = async () =>
      (
        (await sampler.query(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [dbName])).rows as Array<{
          pid: number;
        }>
      ).map((r) => r.pid);
    const redisCpu = async () => {
      const info = await redis.info('cpu');
      const field = (name: string) => Number(info.match(new RegExp(`^${name}:([\\d.]+)`, 'm'))?.[1] ?? 0);
      return field('used_cpu_sys') + field('used_cpu_user');
    };
    const pg0 = new Map((await pgPids()).map((p) => [p, cpuOf(p)]));
    const api0 = apiPids.map(cpuOf);
    const primary0 = cpuOf(api.pid);
    const redis0 = await redisCpu();
    const bench0 = process.cpuUsage();
    const machine0 = machineBusy();
    const t0 = performance.now();
    const end = t0 + SECONDS * 1000;
    const latencies: number[] = [];
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < end) latencies.push((await turn(api.url, model)).total);
      }),
    );
    const secs = (performance.now() - t0) / 1000;
    const connections = connectionsOf(apiPids, Number(new URL(api.url).port));
    const pct = (s: number) => round((s / secs) * 100);
    const pg1 = await pgPids();
    const bench = process.cpuUsage(bench0);
    return {
      processes,
      clients,
      build: main ?? 'this tree',
      tps: latencies.length / secs,
      p50: percentile(latencies, 50),
      connections,
      cpu: {
        primary: processes > 1 ? pct(cpuOf(api.pid) - primary0) : 0,
        api: apiPids.map((p, i) => pct(cpuOf(p) - api0[i])),
        postgres: pct(pg1.reduce((s, p) => s + cpuOf(p) - (pg0.get(p) ?? cpuOf(p)), 0)),
        redis: pct((await redisCpu()) - redis0),
        bench: pct((bench.user + bench.system) / 1e6),
        machine: pct(machineBusy() - machine0),
      },
    };
  } finally {
    await sampler.end();
    redis.disconnect();
    await api.stop();
  }
}

async function main(): Promise<void> {
  const model = new StreamingModelServer();
  await model.start();
  model.behaviour = { ttftMs: 0, tokensPerSecond: 0, answerTokens: 20 };
  const db = await createTestDatabase('cores');
  const windows: Window[] = [];
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (const step of STEPS) {
        const w = await window(db.url, db.name, model, step);
        windows.push(w);
        process.stderr.write(
          `WEB_CONCURRENCY=${w.processes}, ${w.clients} clients (${w.build}): ${round(w.tps)} turns/s ${JSON.stringify(w.cpu)} connections ${w.connections}\n`,
        );
      }
    }
  } finally {
    await model.stop();
    await db.drop();
  }
  const rows = windows.map((w) => [
    `${w.processes} (${w.build})`,
    String(w.clients),
    `${round(w.tps)}`,
    `${round(w.p50)}`,
    `${w.cpu.primary}`,
    w.cpu.api.join(' + '),
    w.connections.join(' + '),
    `${w.cpu.postgres}`,
    `${w.cpu.redis}`,
    `${w.cpu.bench}`,
    `${w.cpu.machine}`,
    `${round(((w.cpu.api.reduce((s, n) => s + n, 0) + w.cpu.primary) * 10) / w.tps, 2)}`,
  ]);
  process.stdout.write(
    table(rows, [
      'WEB_CONCURRENCY (build)',
      'clients',
      'turns/s',
      'latency p50 ms',
      'primary %',
      'API processes %',
      'client connections',
      'Postgres %',
      'Redis %',
      'clients + model %',
      'machine %',
      'API CPU ms / turn',
    ]) + '\n',
  );
}

void main().catch((err: Error) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
