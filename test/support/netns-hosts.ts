import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Client } from 'pg';

import { waitFor } from './test-app';

/**
 * Hosts of their own on this machine: each host a network namespace (`ip netns`) with one address on a private
 * /24, joined by a veth pair to a bridge in the root namespace. The bridge has the subnet's `.1` (`gateway`), so
 * this process reaches every host, and every host reaches servers this process listens with on that address.
 * `cut(host)` takes the bridge's end of the host's cable down (its packets are dropped: no reset, no error, as a
 * pulled cable or a partition); `restore(host)` puts it back. Needs root and iproute2.
 *
 *   const hosts = createHosts(['db', 'redis', 'api', 'worker']);
 *   const pg = await startPostgres(hosts, 'db');     // postgres://postgres@10.x.y.10:5432/postgres
 *   const w = hosts.spawn('worker', process.execPath, ['dist/worker.js'], { env });
 *   hosts.cut('worker'); … hosts.restore('worker');
 *   hosts.teardown();                                 // also on process exit
 *
 * A run killed by a signal leaves its hosts behind: the next `cleanupStale()` removes them.
 *
 * Names carry this process's pid (`nh` + pid in base 36 + a random part), so runs side by side never collide, and
 * `cleanupStale()` removes what a crashed earlier run left behind (its pid is gone). The subnet is a random
 * 10.a.b.0/24 that no route of the machine uses.
 */
export interface Hosts {
  /** the bridge's address: this process, as the hosts see it */
  readonly gateway: string;
  addr(host: string): string;
  /** `command` run inside the host's namespace (`ip netns exec`); its output is kept, it is killed at teardown */
  spawn(host: string, command: string, args: string[], opts?: { env?: Record<string, string>; cwd?: string }): HostProcess;
  cut(host: string): void;
  restore(host: string): void;
  /** runs at teardown, after the processes are killed (synchronous: it may run on process exit) */
  onTeardown(fn: () => void): void;
  /** kills every process in the hosts, deletes the namespaces and the bridge (idempotent, synchronous) */
  teardown(): void;
}

const PREFIX = 'nh';
/** `nh` + pid (5 base-36 digits) + 3 random ones: at most 15 characters with a suffix of 2 */
const NAME = new RegExp(`^${PREFIX}([0-9a-z]{5})[0-9a-z]{3}`);

function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** `ip`, ignoring failure (teardown of what may already be gone). */
function ipQuiet(...args: string[]): void {
  try {
    ip(...args);
  } catch {
    /* gone already */
  }
}

/** `ip netns list`, or a clear error where this machine cannot make hosts. */
function requireNetns(): string {
  try {
    return ip('netns', 'list');
  } catch (err) {
    const e = err as Error & { stderr?: string };
    throw new Error(`network namespaces are unavailable (this needs root and iproute2's ip netns): ${e.stderr || e.message}`);
  }
}

export function createHosts(names: string[]): Hosts {
  requireNetns();
  const id = `${process.pid.toString(36).padStart(5, '0')}${randomBytes(2).readUInt16BE().toString(36).padStart(3, '0').slice(-3)}`;
  const ns = (host: string) => `${PREFIX}${id}-${host}`;
  const bridge = `${PREFIX}${id}b`;
  const cable = (host: string) => `${PREFIX}${id}v${names.indexOf(host)}`;
  const subnet = freeSubnet();
  const gateway = `${subnet}.1`;
  const addr = (host: string) => {
    if (!names.includes(host)) throw new Error(`no host ${host}`);
    return `${subnet}.${10 + names.indexOf(host)}`;
  };
  const cleanups: Array<() => void> = [];
  let down = false;

  const teardown = () => {
    if (down) return;
    down = true;
    process.off('exit', teardown);
    // every cable up and every process gone before the network is: a socket closed toward a host whose link has
    // vanished would retransmit its FIN for minutes, and keep its namespace (and the veth) alive that long
    for (const host of names) ipQuiet('link', 'set', cable(host), 'up');
    for (const host of names) killAll(ns(host));
    for (const host of names) ipQuiet('netns', 'del', ns(host));
    ipQuiet('link', 'del', bridge);
    for (const fn of cleanups) fn();
  };
  process.on('exit', teardown);

  try {
    ip('link', 'add', bridge, 'type', 'bridge');
    ip('addr', 'add', `${gateway}/24`, 'dev', bridge);
    ip('link', 'set', bridge, 'up');
    for (const host of names) {
      const peer = `${PREFIX}${id}p${names.indexOf(host)}`;
      ip('netns', 'add', ns(host));
      ip('link', 'add', cable(host), 'type', 'veth', 'peer', 'name', peer);
      ip('link', 'set', peer, 'netns', ns(host));
      ip('-n', ns(host), 'link', 'set', peer, 'name', 'eth0');
      ip('-n', ns(host), 'addr', 'add', `${addr(host)}/24`, 'dev', 'eth0');
      ip('-n', ns(host), 'link', 'set', 'eth0', 'up');
      ip('-n', ns(host), 'link', 'set', 'lo', 'up');
      ip('link', 'set', cable(host), 'master', bridge, 'up');
    }
  } catch (err) {
    teardown();
    const e = err as Error & { stderr?: string };
    throw new Error(
      `network namespaces could not be set up (this needs root and iproute2: ip netns, veth, bridge): ${e.stderr || e.message}`,
    );
  }

  return {
    gateway,
    addr,
    spawn(host, command, args, opts = {}) {
      addr(host);
      const child = spawn('ip', ['netns', 'exec', ns(host), command, ...args], {
        cwd: opts.cwd,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...opts.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      return new HostProcess(host, child);
    },
    cut: (host) => void ip('link', 'set', cable(host), 'down'),
    restore: (host) => void ip('link', 'set', cable(host), 'up'),
    onTeardown: (fn) => void cleanups.push(fn),
    teardown,
  };
}

/** A random 10.a.b.0/24 (as `10.a.b`) that no address or route of this machine falls in. */
function freeSubnet(): string {
  const used = ip('-o', 'route', 'show', 'table', 'all') + ip('-o', 'addr');
  for (;;) {
    const [a, b] = randomBytes(2);
    const subnet = `10.${1 + (a % 254)}.${b}`;
    if (!used.includes(`${subnet}.`) && !used.includes(`10.${1 + (a % 254)}.0.0/`)) return subnet;
  }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** SIGKILL to every process in the namespace; waits (up to 5 s) until they are gone. */
function killAll(name: string): void {
  const pids = () => {
    try {
      return ip('netns', 'pids', name).split('\n').filter(Boolean).map(Number);
    } catch {
      return []; // no such namespace
    }
  };
  for (let i = 0; i < 100; i++) {
    const left = pids().filter((pid) => processStartedAt(pid) !== undefined && !zombie(pid));
    if (!left.length) return;
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* exited meanwhile */
      }
    }
    sleep(50);
  }
}

function zombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

function removeNamespace(name: string): void {
  killAll(name);
  ipQuiet('netns', 'del', name);
}

/** when the process started (ms since the epoch; /proc/PID/stat counts 100 ticks a second from boot), or undefined when it is not running */
function processStartedAt(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const boot = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))![1]);
    return boot * 1000 + ticks * 10;
  } catch {
    return undefined;
  }
}

/**
 * Removes namespaces and links a crashed earlier run left: named like ours, and the process whose pid the name
 * carries is gone (or is a newer process that reuses the pid). Returns the names removed.
 */
export function cleanupStale(): string[] {
  const removed: string[] = [];
  const stale = (name: string, createdAt?: number) => {
    const m = NAME.exec(name);
    if (!m) return false;
    const pid = parseInt(m[1], 36);
    const started = processStartedAt(pid);
    return pid !== process.pid && (started === undefined || (createdAt !== undefined && started > createdAt));
  };
  for (const name of requireNetns()
    .split('\n')
    .map((l) => l.split(' ')[0])
    .filter(Boolean)) {
    let createdAt: number | undefined;
    try {
      createdAt = statSync(`/run/netns/${name}`).mtimeMs;
    } catch {
      /* listed but not mounted there */
    }
    if (stale(name, createdAt)) {
      removeNamespace(name);
      removed.push(name);
    }
  }
  for (const line of ip('-o', 'link', 'show').split('\n')) {
    const name = /^\d+: ([^:@]+)/.exec(line)?.[1];
    if (name && stale(name)) {
      ipQuiet('link', 'del', name);
      removed.push(name);
    }
  }
  return removed;
}

/** A process in a host: its output kept (the last 50 kB), its exit. */
export class HostProcess {
  readonly exited: Promise<number | string>;
  private text = '';

  constructor(
    readonly host: string,
    readonly child: ChildProcess,
  ) {
    const keep = (chunk: Buffer) => (this.text = (this.text + chunk.toString('utf8')).slice(-50_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code ?? -1)));
  }

  get output(): string {
    return this.text;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  kill(signal: NodeJS.Signals): void {
    if (this.alive) this.child.kill(signal);
  }

  /** Waits until the output contains `text` (throws with the output when the process exits first). */
  waitForOutput(text: string | RegExp, timeoutMs = 30_000): Promise<void> {
    return waitFor(
      async () => {
        if (typeof text === 'string' ? this.text.includes(text) : text.test(this.text)) return true;
        if (!this.alive) throw new Error(`${this.host}: exited before "${text}":\n${this.text.slice(-5000)}`);
        return undefined;
      },
      timeoutMs,
      50,
    ).then(() => undefined);
  }
}

/**
 * A Postgres cluster of its own on the host (initdb in a temporary directory, run as the `postgres` user,
 * listening on the host's address only, trust authentication): its URL. Its files go with `teardown`'s kill.
 */
export async function startPostgres(hosts: Hosts, host: string): Promise<{ url: string; process: HostProcess; dir: string }> {
  const bin = '/usr/lib/postgresql/15/bin';
  const dir = mkdtempSync(path.join(tmpdir(), 'netns-pg-'));
  const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim()));
  chownSync(dir, uid, gid);
  const asPostgres = ['--reuid', String(uid), '--regid', String(gid), '--clear-groups'];
  execFileSync('setpriv', [...asPostgres, `${bin}/initdb`, '-D', dir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8'], {
    stdio: 'pipe',
  });
  writeFileSync(path.join(dir, 'pg_hba.conf'), 'local all all trust\nhost all all 0.0.0.0/0 trust\n');
  const p = hosts.spawn(host, 'setpriv', [
    ...asPostgres,
    `${bin}/postgres`,
    '-D',
    dir,
    '-k',
    dir,
    '-p',
    '5432',
    '-c',
    `listen_addresses=${hosts.addr(host)}`,
    '-c',
    'max_connections=300',
    '-c',
    'fsync=off',
  ]);
  const url = `postgres://postgres@${hosts.addr(host)}:5432/postgres`;
  await waitFor(async () => {
    if (!p.alive) throw new Error(`postgres exited:\n${p.output}`);
    const c = new Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await c.connect();
      return true;
    } catch {
      return undefined;
    } finally {
      await c.end().catch(() => undefined);
    }
  }, 30_000);
  hosts.onTeardown(() => rmSync(dir, { recursive: true, force: true }));
  return { url, process: p, dir };
}

/** A Redis of its own on the host, listening on the host's address only, nothing saved: its URL. */
export async function startRedis(hosts: Hosts, host: string): Promise<{ url: string; process: HostProcess }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'netns-redis-'));
  const p = hosts.spawn(host, 'redis-server', [
    '--bind',
    hosts.addr(host),
    '--port',
    '6379',
    '--save',
    '',
    '--appendonly',
    'no',
    '--protected-mode',
    'no',
    '--dir',
    dir,
  ]);
  await p.waitForOutput('Ready to accept connections', 15_000);
  hosts.onTeardown(() => rmSync(dir, { recursive: true, force: true }));
  return { url: `redis://${hosts.addr(host)}:6379`, process: p };
}
