import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';

import type { Logger } from 'pino';

import type { AppConfig } from './config/app-config';
import { prepareDatabase } from './database/prepare-database';
import { serveClusterMetrics } from './observability/cluster-metrics';
import { createRootLogger } from './observability/logger';

/** A dead API process is replaced after this long, doubled for each one in a row that died before it listened. */
const RESTART_DELAY_MS = 500;
/** This many in a row dying before they listen: the start-up itself is broken, and the primary exits 1. */
const MAX_STARTUP_FAILURES = 5;

/**
 * How many API processes run: WEB_CONCURRENCY with external Postgres and Redis; one on the embedded database
 * (PGlite in DATA_DIR) or without Redis (in-process queue and run event bus), which one process owns.
 */
export function apiProcessCount(config: AppConfig): number {
  return config.databaseUrl && config.redisUrl ? config.webConcurrency : 1;
}

/**
 * Runs the API (`serve`, given the number of processes) in this process, or — WEB_CONCURRENCY above 1 — in
 * that many node:cluster workers sharing config.port, Node handing them connections in turn. The primary
 * runs the database's schema steps once, forks, replaces a worker that dies, and forwards SIGTERM/SIGINT
 * (each worker shuts down as a single process does) before exiting 0. Should the primary itself die, its
 * workers exit with it: Node's cluster ends a worker whose IPC channel to the primary closes.
 */
export async function runApiProcesses(config: AppConfig, serve: (processes: number) => Promise<void>): Promise<void> {
  const processes = apiProcessCount(config);
  if (cluster.isWorker) return serve(processes);
  const log = createRootLogger(config).child({ context: 'Cluster' });
  if (processes < config.webConcurrency) {
    const missing = [config.databaseUrl ? '' : 'DATABASE_URL', config.redisUrl ? '' : 'REDIS_URL (or REDIS_SENTINELS)']
      .filter(Boolean)
      .join(' and ');
    log.warn(
      `WEB_CONCURRENCY=${config.webConcurrency} ignored: without ${missing} the embedded database, the inline queue ` +
        'and the in-process run event bus belong to one process — running one API process',
    );
  }
  if (processes === 1) return serve(1);
  await prepareDatabase(config);
  log.info(`starting ${processes} API processes (WEB_CONCURRENCY) on port ${config.port}`);
  serveClusterMetrics();
  // one stream-ticket secret for all the workers: a ticket one issued opens a socket on any (auth/stream-ticket.ts)
  superviseWorkers(processes, log, config.streamTickets.secret ?? randomBytes(32).toString('base64url'));
}

function superviseWorkers(count: number, log: Logger, ticketSecret: string): void {
  const live = new Set<Worker>();
  const listened = new WeakSet<Worker>();
  const restarts = new Set<NodeJS.Timeout>();
  let failuresInARow = 0;
  let exitCode: number | undefined;

  const fork = () => {
    // the migrations ran above, once
    const worker = cluster.fork({ DB_MIGRATIONS_RUN: 'false', STREAM_TICKET_SECRET: ticketSecret });
    live.add(worker);
    worker.once('listening', () => {
      listened.add(worker);
      failuresInARow = 0;
    });
  };
  const exitWhenAllGone = () => {
    if (exitCode === undefined || live.size > 0) return;
    log.info(`all API processes stopped: exit ${exitCode}`);
    process.exit(exitCode);
  };
  const stop = (code: number, signal: NodeJS.Signals) => {
    if (exitCode !== undefined) return;
    exitCode = code;
    for (const t of restarts) clearTimeout(t);
    if (live.size > 0) log.info(`${signal}: stopping ${live.size} API processes`);
    for (const w of live) w.process.kill(signal);
    exitWhenAllGone();
  };

  cluster.on('exit', (worker, code, signal) => {
    live.delete(worker);
    if (exitCode !== undefined) return exitWhenAllGone();
    const pid = worker.process.pid;
    if (!listened.has(worker) && ++failuresInARow >= MAX_STARTUP_FAILURES) {
      log.fatal({ worker_pid: pid, code, signal }, `${failuresInARow} API processes in a row died before listening: giving up`);
      return stop(1, 'SIGTERM');
    }
    const delay = RESTART_DELAY_MS * 2 ** failuresInARow;
    log.error({ worker_pid: pid, code, signal }, `API process ${pid} died (${signal ?? `exit code ${code}`}): replaced in ${delay} ms`);
    const t = setTimeout(() => {
      restarts.delete(t);
      fork();
    }, delay);
    restarts.add(t);
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => stop(0, signal));
  for (let i = 0; i < count; i++) fork();
}
