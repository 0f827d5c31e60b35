import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from 'pg';

import { freePort } from './infra';

export interface PgBouncer {
  readonly port: number;
  /** `url` (a Postgres URL) with its host and port replaced by this PgBouncer's */
  via(url: string): string;
  stop(): Promise<void>;
}

/**
 * A real PgBouncer (Debian's `pgbouncer` package) as a child process with an ini of its own in a temp dir, in
 * transaction pooling mode in front of the Postgres at `target` (a URL; its user is the one PgBouncer trusts).
 * Every database name routes through (the `*` fallback), so each test file's fresh database does too. Throws
 * when PgBouncer is missing or does not answer, with its output.
 */
export async function startPgBouncer(target: string, options: { poolSize?: number } = {}): Promise<PgBouncer> {
  const { hostname, port: targetPort, username } = new URL(target);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'pgbouncer-'));
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(join(dir, 'users.txt'), `"${decodeURIComponent(username) || 'postgres'}" ""\n`);
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${hostname} port=${targetPort || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 1000',
      `default_pool_size = ${options.poolSize ?? 20}`,
      // a Postgres restart: retry the server login after 1 s, not the default 15 s
      'server_login_retry = 1',
      'log_connections = 0',
      'log_disconnections = 0',
      'ignore_startup_parameters = extra_float_digits',
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root; as root it drops to the postgres user, which must read the ini
  chmodSync(dir, 0o755);
  const asRoot = process.getuid?.() === 0;
  // its log goes to a file: a parent blocked in spawnSync (scripts/test.ts) would not drain a pipe
  const log = join(dir, 'pgbouncer.log');
  const fd = openSync(log, 'a');
  const bin = existsSync('/usr/sbin/pgbouncer') ? '/usr/sbin/pgbouncer' : 'pgbouncer'; // sbin: not on every PATH
  const child: ChildProcess = spawn(bin, [...(asRoot ? ['-u', 'postgres'] : []), ini], { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  let failed: Error | undefined;
  child.once('error', (err) => (failed = err));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));

  const via = (url: string) => {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(port);
    return u.toString();
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 10_000;
  for (;;) {
    const c = new Client({ connectionString: via(target), connectionTimeoutMillis: 1000 });
    try {
      await c.connect();
      await c.query('SELECT 1');
      await c.end();
      return { port, via, stop };
    } catch (err) {
      await c.end().catch(() => undefined);
      const gone = failed ?? (child.exitCode !== null ? new Error(`exited with code ${child.exitCode}`) : undefined);
      if (gone || Date.now() > deadline) {
        const output = readFileSync(log, 'utf8').slice(-5000);
        await stop();
        throw new Error(`PgBouncer did not start (${(gone ?? (err as Error)).message}):\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
