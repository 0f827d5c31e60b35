import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import IORedis from 'ioredis';

import { freePort } from '../../support/main-process';
import { waitFor } from '../../support/test-app';

export const SENTINEL_NAME = 'mymaster';

interface Node {
  name: string;
  port: number;
  child: ChildProcess;
  output: string;
}

/**
 * A Redis Sentinel group of real processes on free ports, in a temp dir: a primary, a replica and three
 * sentinels (`redis-server --sentinel`, what Debian's `redis-sentinel` runs) with a quorum of two. The primary
 * is declared down after DOWN_AFTER_MS without an answer, then the sentinels promote the replica.
 */
export class SentinelGroup {
  static readonly DOWN_AFTER_MS = 1000;
  readonly dir = mkdtempSync(path.join(tmpdir(), 'sentinel-'));
  primary!: Node;
  replica!: Node;
  readonly sentinels: Node[] = [];

  async start(): Promise<this> {
    this.primary = await this.server('primary', await freePort(), []);
    this.replica = await this.server('replica', await freePort(), ['--replicaof', '127.0.0.1', String(this.primary.port)]);
    await this.synced(this.replica);
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const conf = path.join(this.dir, `sentinel-${i}.conf`); // a sentinel rewrites its file: one each
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${this.dir}`,
          `sentinel monitor ${SENTINEL_NAME} 127.0.0.1 ${this.primary.port} 2`,
          `sentinel down-after-milliseconds ${SENTINEL_NAME} ${SentinelGroup.DOWN_AFTER_MS}`,
          `sentinel failover-timeout ${SENTINEL_NAME} 5000`,
          `sentinel parallel-syncs ${SENTINEL_NAME} 1`,
          '',
        ].join('\n'),
      );
      this.sentinels.push(this.spawn(`sentinel-${i}`, port, [conf, '--sentinel']));
    }
    // every sentinel knows the replica and the two other sentinels: a failover can be agreed on
    await waitFor(
      async () => {
        for (const s of this.sentinels) {
          const m = await this.ask(s.port, ['SENTINEL', 'MASTER', SENTINEL_NAME]).catch(() => null);
          const fields = pairs(m as string[] | null);
          if (fields['num-slaves'] !== '1' || fields['num-other-sentinels'] !== '2') return undefined;
        }
        return true;
      },
      20_000,
      200,
    );
    return this;
  }

  /** REDIS_SENTINELS for the service */
  get sentinelList(): string {
    return this.sentinels.map((s) => `127.0.0.1:${s.port}`).join(',');
  }

  /** The primary's port as the sentinels name it now. */
  async currentPrimaryPort(): Promise<number> {
    const [, port] = (await this.ask(this.sentinels[0].port, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_NAME])) as string[];
    return Number(port);
  }

  alive(node: Node): boolean {
    return node.child.exitCode === null && node.child.signalCode === null;
  }

  /** The primary's port once every sentinel names the same one (a sentinel learns a failover from the others' hellos, every 2 s). */
  async agreedPrimaryPort(): Promise<number | undefined> {
    const ports = new Set<number>();
    for (const s of this.sentinels) {
      const [, port] = (await this.ask(s.port, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_NAME])) as string[];
      ports.add(Number(port));
    }
    return ports.size === 1 ? [...ports][0] : undefined;
  }

  kill(node: Node): void {
    node.child.kill('SIGKILL');
  }

  /**
   * A killed node started again on its port as a replica of `primaryPort` (what an operator does after a
   * failover); resolves once it has synced and every sentinel counts it as a healthy replica.
   */
  async revive(node: Node, primaryPort: number): Promise<void> {
    await this.server(node.name, node.port, ['--replicaof', '127.0.0.1', String(primaryPort)], node);
    await this.synced(node);
    await waitFor(
      async () => {
        for (const s of this.sentinels) {
          const replicas = ((await this.ask(s.port, ['SENTINEL', 'REPLICAS', SENTINEL_NAME]).catch(() => [])) as string[][]).map(pairs);
          const it = replicas.find((r) => r.port === String(node.port));
          if (it?.flags !== 'slave' || it['master-link-status'] !== 'ok') return undefined;
        }
        return true;
      },
      30_000,
      200,
    );
  }

  /** SENTINEL FAILOVER: a planned switchover to a replica (asked again while a sentinel finds none good yet). */
  async switchover(): Promise<void> {
    await waitFor(
      async () =>
        (await this.ask(this.sentinels[0].port, ['SENTINEL', 'FAILOVER', SENTINEL_NAME]).catch(() => null)) === 'OK' ? true : undefined,
      15_000,
      250,
    );
  }

  /** Every process killed and the temp dir removed (safe to call twice, and after a failed start). */
  async stop(): Promise<void> {
    const all = [this.primary, this.replica, ...this.sentinels].filter(Boolean);
    await Promise.all(
      all.map(
        (n) =>
          new Promise<void>((resolve) => {
            if (n.child.exitCode !== null || n.child.signalCode !== null) return resolve();
            n.child.once('exit', () => resolve());
            n.child.kill('SIGKILL');
          }),
      ),
    );
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** The output of every process, for a failure's message. */
  logs(): string {
    return [this.primary, this.replica, ...this.sentinels]
      .filter(Boolean)
      .map((n) => `--- :${n.port}\n${n.output.slice(-3000)}`)
      .join('\n');
  }

  async info(port: number): Promise<Record<string, string>> {
    const text = String(await this.ask(port, ['INFO', 'replication']));
    return Object.fromEntries(text.split(/\r?\n/).map((l) => l.split(':') as [string, string]));
  }

  /** One command on a connection of its own (no retries: a dead node rejects). */
  async ask(port: number, command: string[]): Promise<unknown> {
    const r = new IORedis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    r.on('error', () => undefined);
    try {
      await r.connect();
      return await r.call(command[0], ...command.slice(1));
    } finally {
      r.disconnect();
    }
  }

  private async synced(node: Node): Promise<void> {
    await waitFor(async () => ((await this.info(node.port)).master_link_status === 'up' ? true : undefined), 15_000);
  }

  private async server(name: string, port: number, args: string[], into?: Node): Promise<Node> {
    const node = this.spawn(
      name,
      port,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        this.dir,
        '--dbfilename',
        `${name}.rdb`,
        '--save',
        '',
        '--appendonly',
        'no',
        ...args,
      ],
      into,
    );
    await waitFor(async () => ((await this.ask(port, ['PING']).catch(() => null)) === 'PONG' ? true : undefined), 10_000);
    return node;
  }

  /** `into`: a node started again (its new process and output replace the old) */
  private spawn(name: string, port: number, args: string[], into?: Node): Node {
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const node: Node = Object.assign(into ?? { name, port }, { child, output: '' });
    const keep = (chunk: Buffer) => (node.output = (node.output + chunk.toString('utf8')).slice(-20_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    return node;
  }
}

/** a Redis reply of alternating names and values as an object */
function pairs(reply: string[] | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; reply && i + 1 < reply.length; i += 2) out[reply[i]] = reply[i + 1];
  return out;
}
