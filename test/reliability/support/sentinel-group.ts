import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import IORedis from 'ioredis';

import { freePort } from '../../support/main-process';
import { waitFor } from '../../support/test-app';

export const SENTINEL_NAME = 'mymaster';

interface Node {
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
    this.primary = await this.server('primary', []);
    this.replica = await this.server('replica', ['--replicaof', '127.0.0.1', String(this.primary.port)]);
    await waitFor(async () => ((await this.info(this.replica.port)).master_link_status === 'up' ? true : undefined), 15_000);
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
      this.sentinels.push(this.spawn(port, [conf, '--sentinel']));
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

  killPrimary(): void {
    this.primary.child.kill('SIGKILL');
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

  private async server(name: string, args: string[]): Promise<Node> {
    const port = await freePort();
    const node = this.spawn(port, [
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
    ]);
    await waitFor(async () => ((await this.ask(port, ['PING']).catch(() => null)) === 'PONG' ? true : undefined), 10_000);
    return node;
  }

  private spawn(port: number, args: string[]): Node {
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const node: Node = { port, child, output: '' };
    const keep = (chunk: Buffer) => (node.output = (node.output + chunk.toString('utf8')).slice(-20_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    return node;
  }
}

/** a Redis reply of alternating names and values as an object */
function pairs(reply: string[] | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; reply && i + 1 < reply.length; i += 2) out[reply[i]] = reply[i + 1];
  return out;
}
