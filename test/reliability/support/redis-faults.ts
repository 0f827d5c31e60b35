import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

import IORedis from 'ioredis';

import { TEST_REDIS_URL } from '../../support/infra';

/** Deletes every key of one queue prefix: what FLUSHALL does to this test's data, without touching other suites. */
export async function flushPrefix(prefix: string): Promise<number> {
  const r = new IORedis(TEST_REDIS_URL);
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) deleted += await r.del(...keys);
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
  return deleted;
}

/** The local ports of a process's TCP connections to the Redis port (from /proc; Linux). */
function redisPortsOf(pid: number, redisPort: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = readlinkSync(`/proc/${pid}/fd/${fd}`).match(/^socket:\[(\d+)\]$/);
      if (m) inodes.add(m[1]);
    } catch {
      /* closed meanwhile */
    }
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || !inodes.has(cols[9])) continue;
      const remotePort = parseInt(cols[2].split(':')[1], 16);
      if (remotePort === redisPort) ports.push(parseInt(cols[1].split(':')[1], 16));
    }
  }
  return ports;
}

/** CLIENT KILL every Redis connection of one process (what a Redis restart does to it). Returns how many. */
export async function killRedisClientsOf(pid: number): Promise<number> {
  const url = new URL(TEST_REDIS_URL);
  const ports = new Set(redisPortsOf(pid, Number(url.port || 6379)));
  const r = new IORedis(TEST_REDIS_URL);
  let killed = 0;
  try {
    const clients = String(await r.call('CLIENT', 'LIST')).split('\n');
    for (const c of clients) {
      const addr = c.match(/ addr=(\S+)/)?.[1];
      const port = Number(addr?.split(':').pop());
      if (addr && ports.has(port))
        killed += Number(
          await r.call('CLIENT', 'KILL', 'ADDR', addr).then(
            () => 1,
            () => 0,
          ),
        );
    }
  } finally {
    r.disconnect();
  }
  return killed;
}
