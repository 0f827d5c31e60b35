/** REDIS_SENTINELS and its companions: the sentinels that name the current primary of the group `name`. */
export interface RedisSentinel {
  sentinels: Array<{ host: string; port: number }>;
  /** REDIS_SENTINEL_NAME: the master group the sentinels monitor */
  name: string;
  /** REDIS_SENTINEL_PASSWORD: the sentinels' own `requirepass` (the data nodes' password comes from REDIS_URL) */
  password?: string;
  /** REDIS_SENTINEL_TLS: talk to the sentinels over TLS */
  tls: boolean;
}

/** Where Redis is: REDIS_URL alone, or the sentinels with REDIS_URL for the data nodes' user, password, db and TLS. */
export interface RedisTarget {
  redisUrl?: string;
  redisSentinel?: RedisSentinel;
}

/**
 * A demoted primary that a client is still connected to answers writes with READONLY: reconnect (asking the
 * sentinels for the primary again) and send the command again. A replica refuses a script at its first write,
 * so the resent command has not been half done.
 */
export function reconnectOnReadonly(err: Error): 2 | false {
  return err.message.startsWith('READONLY') ? 2 : false;
}

/**
 * The ioredis/BullMQ connection settings of every Redis client of the service (BullMQ workers need
 * `maxRetriesPerRequest: null`). A URL alone: that server. With sentinels: the sentinels are asked for the
 * primary of the group at every (re)connect, so a client follows a failover; the URL's host is not used.
 */
export function redisOptions(target: string | RedisTarget) {
  const { redisUrl, redisSentinel } = typeof target === 'string' ? { redisUrl: target, redisSentinel: undefined } : target;
  if (!redisUrl) throw new Error('redisOptions: no Redis configured (REDIS_URL or REDIS_SENTINELS)');
  const u = new URL(redisUrl);
  const node = {
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    tls: u.protocol === 'rediss:' ? {} : undefined,
    maxRetriesPerRequest: null,
    reconnectOnError: reconnectOnReadonly,
  };
  if (!redisSentinel) return { host: u.hostname, port: Number(u.port || 6379), ...node };
  return {
    ...node,
    sentinels: redisSentinel.sentinels.map(({ host, port }) => ({ host, port })),
    name: redisSentinel.name,
    role: 'master' as const,
    sentinelPassword: redisSentinel.password,
    sentinelTLS: redisSentinel.tls ? {} : undefined,
    // the data nodes over TLS too when REDIS_URL is rediss:// (ioredis leaves them plain in sentinel mode otherwise)
    enableTLSForSentinelMode: node.tls !== undefined,
    // a planned switchover (SENTINEL FAILOVER) leaves the old primary up and taking writes until the sentinels
    // turn it into a replica, ~10 s later, and those writes are then lost: each client listens for the sentinels'
    // +switch-master and reconnects at once (one subscriber connection per sentinel per client)
    failoverDetector: true,
  };
}

/**
 * REDIS_SENTINELS: `host:port,host:port` (port 26379 when left out; an IPv6 host in brackets). Returns the
 * list, or the problem with the first entry that is not one.
 */
export function parseSentinels(spec: string): Array<{ host: string; port: number }> | string {
  const out: Array<{ host: string; port: number }> = [];
  for (const item of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = item.match(/^(?:\[([^\]]+)\]|([^:[\]\s]+))(?::(\d+))?$/);
    const port = m?.[3] === undefined ? 26379 : Number(m[3]);
    if (!m || port < 1 || port > 65535) return `"${item}" is not host:port`;
    out.push({ host: m[1] ?? m[2], port });
  }
  return out;
}
