/**
 * `node -r ./test/support/swc-register.js bench/compare/cost.ts` (after `nest build`; not in CI): what one
 * LangGraph API run of the compare graph costs this service, in figures that a loaded machine does not distort —
 * the server's CPU time (utime + stime of its process), the Postgres statements it sends (`log_statement = all`
 * on its own database, counted in the server log) and the Redis commands it sends (`MONITOR`, the lines that
 * name its QUEUE_PREFIX) — per `runs.wait` and per `runs.stream`, sequentially, after a warm-up.
 * COST_RUNS (default 50), COST_MAIN (another build's dist/main.js, for A/B runs), COST_DUMP (a path prefix: the statements and commands are written next to it), PG_LOG (default /var/log/postgresql/postgresql-15-main.log).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { Client } from '@langchain/langgraph-sdk';
import { Client as Pg } from 'pg';

import { createTestDatabase, TEST_PG_URL, TEST_REDIS_URL, uniqueQueuePrefix } from '../../test/support/infra';
import { type ChatRequest, ScriptedModelServer } from '../../test/support/model-server';

const ROOT = join(__dirname, '..', '..');
const RUNS = Number(process.env.COST_RUNS ?? 50);
const PG_LOG = process.env.PG_LOG ?? '/var/log/postgresql/postgresql-15-main.log';
const PORT = Number(process.env.COMPARE_OURS_PORT ?? 2125);
const ASSISTANT = 'react_calc';
const INPUT = { messages: [{ type: 'human', content: 'What is 6*7?' }] };

function responder(req: ChatRequest) {
  const last = req.messages[req.messages.length - 1];
  if (last?.role === 'tool') return { content: `The answer is ${String(last.content)}.` };
  return { toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] };
}

/** CPU seconds (user + system) the process has used so far. */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/** Statements logged for `db` since byte `from` of the Postgres log. */
function statementsSince(from: number, db: string, dumpTo?: string): number {
  const size = statSync(PG_LOG).size;
  const buf = Buffer.alloc(size - from);
  readSync(openSync(PG_LOG, 'r'), buf, 0, buf.length, from);
  const tag = `@${db} LOG:  `;
  const lines = buf
    .toString('utf8')
    .split('\n')
    .filter((l) => l.includes(tag) && /LOG: {2}(statement|execute)/.test(l));
  if (dumpTo) writeFileSync(dumpTo, lines.join('\n'));
  return lines.length;
}

async function main(): Promise<void> {
  const model = new ScriptedModelServer();
  await model.start();
  model.setResponder(responder);
  const db = await createTestDatabase('lgcost');
  const admin = new Pg({ connectionString: TEST_PG_URL });
  await admin.connect();
  await admin.query(`ALTER DATABASE "${db.name}" SET log_statement = 'all'`);
  await admin.end();
  const prefix = uniqueQueuePrefix('lgcost');
  let server: ChildProcess | undefined;
  let monitor: ChildProcess | undefined;
  try {
    server = spawn(
      process.execPath,
      [...(process.env.COST_NODE_ARGS ?? '').split(' ').filter(Boolean), process.env.COST_MAIN ?? join(ROOT, 'dist', 'main.js')],
      {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'inherit'],
        env: {
          ...process.env,
          DATABASE_URL: db.url,
          REDIS_URL: TEST_REDIS_URL,
          QUEUE_PREFIX: prefix,
          LANGGRAPH_CONFIG: join(__dirname, 'langgraph.json'),
          COMPARE_MODEL_BASE_URL: model.baseUrl,
          PORT: String(PORT),
          HOST: '127.0.0.1',
          RATE_LIMIT_PER_MINUTE: '0',
          LLM_BASE_URL: model.baseUrl,
          LLM_MODEL: 'scripted',
          LOG_LEVEL: 'warn',
        },
      },
    );
    const client = new Client({ apiUrl: `http://127.0.0.1:${PORT}`, callerOptions: { maxRetries: 0 }, timeoutMs: 60_000 });
    for (let until = Date.now() + 120_000; ;) {
      if ((await client.assistants.search({ graphId: ASSISTANT, limit: 1 }).catch(() => [])).length) break;
      if (Date.now() > until || server.exitCode !== null) throw new Error('server not ready');
      await new Promise((r) => setTimeout(r, 250));
    }
    let redisLines = 0;
    const dumped: string[] = [];
    monitor = spawn('redis-cli', ['-u', TEST_REDIS_URL, 'monitor'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let counting = false;
    let partial = '';
    monitor.stdout!.on('data', (b: Buffer) => {
      const lines = (partial + b.toString()).split('\n');
      partial = lines.pop() ?? '';
      const ours = lines.filter((l) => l.includes(prefix));
      if (counting) redisLines += ours.length;
      if (counting && process.env.COST_DUMP) dumped.push(...ours);
    });
    const check = (state: any) => {
      const msgs = state?.messages ?? [];
      if (msgs[msgs.length - 1]?.content !== 'The answer is 42.') throw new Error(`wrong answer: ${JSON.stringify(state).slice(0, 300)}`);
    };
    const kinds: Record<string, (threadId: string) => Promise<void>> = {
      'runs.wait': async (t) => check(await client.runs.wait(t, ASSISTANT, { input: INPUT })),
      'runs.stream': async (t) => {
        let last: unknown;
        for await (const ev of client.runs.stream(t, ASSISTANT, { input: INPUT, streamMode: 'values' })) {
          if (ev.event === 'values') last = ev.data;
        }
        check(last);
      },
    };
    for (const [name, one] of Object.entries(kinds)) {
      for (let i = 0; i < 10; i++) await one((await client.threads.create()).thread_id);
      const threads = await Promise.all(Array.from({ length: RUNS }, () => client.threads.create()));
      await new Promise((r) => setTimeout(r, 500)); // let the warm-up's trailing work finish
      const logFrom = statSync(PG_LOG).size;
      const cpu0 = cpuOf(server.pid!);
      redisLines = 0;
      counting = true;
      const t0 = performance.now();
      for (const t of threads) await one(t.thread_id);
      const ms = performance.now() - t0;
      counting = false;
      const cpu = cpuOf(server.pid!) - cpu0;
      await new Promise((r) => setTimeout(r, 300)); // the log writer
      const statements = statementsSince(logFrom, db.name, process.env.COST_DUMP ? `${process.env.COST_DUMP}.${name}.sql` : undefined);
      if (process.env.COST_DUMP) writeFileSync(`${process.env.COST_DUMP}.${name}.redis`, dumped.splice(0).join('\n'));
      console.log(
        `${name}: ${RUNS} runs, server CPU ${((cpu * 1000) / RUNS).toFixed(1)} ms/run, ` +
          `${(statements / RUNS).toFixed(1)} Postgres statements/run, ${(redisLines / RUNS).toFixed(1)} Redis commands/run, ` +
          `wall ${(ms / RUNS).toFixed(1)} ms/run`,
      );
    }
  } finally {
    monitor?.kill();
    if (server?.exitCode === null) {
      const exited = new Promise((r) => server!.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
    await db.drop().catch(() => undefined);
    await model.stop();
  }
  process.exit(0);
}

void main();
