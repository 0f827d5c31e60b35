import { parseSentinels, reconnectOnReadonly, redisOptions } from './redis-options';

const sentinel = { sentinels: [{ host: 's1', port: 26379 }], name: 'mymaster', tls: false };

describe('redisOptions', () => {
  it('a URL: its host, port, user, password, db and TLS', () => {
    expect(redisOptions('rediss://u%40x:p%3Aw@h:6380/2')).toMatchObject({
      host: 'h',
      port: 6380,
      username: 'u@x',
      password: 'p:w',
      db: 2,
      tls: {},
      maxRetriesPerRequest: null,
    });
    expect(redisOptions({ redisUrl: 'redis://h' })).toMatchObject({ host: 'h', port: 6379, db: 0, tls: undefined });
    expect(redisOptions('redis://h')).not.toHaveProperty('sentinels');
  });

  it('sentinels: the group and the sentinels instead of a host; the URL gives the data nodes user, password and db', () => {
    const o = redisOptions({ redisUrl: 'redis://:secret@ignored:1/3', redisSentinel: { ...sentinel, password: 'sp' } });
    expect(o).toMatchObject({
      sentinels: [{ host: 's1', port: 26379 }],
      name: 'mymaster',
      role: 'master',
      sentinelPassword: 'sp',
      sentinelTLS: undefined,
      enableTLSForSentinelMode: false,
      failoverDetector: true,
      password: 'secret',
      db: 3,
      maxRetriesPerRequest: null,
    });
    expect(o).not.toHaveProperty('host');
    expect(o).not.toHaveProperty('port');
  });

  it('sentinels with TLS: REDIS_SENTINEL_TLS for the sentinels, rediss:// for the data nodes', () => {
    expect(redisOptions({ redisUrl: 'redis://mymaster', redisSentinel: { ...sentinel, tls: true } })).toMatchObject({
      sentinelTLS: {},
      enableTLSForSentinelMode: false,
    });
    expect(redisOptions({ redisUrl: 'rediss://mymaster', redisSentinel: sentinel })).toMatchObject({
      sentinelTLS: undefined,
      tls: {},
      enableTLSForSentinelMode: true,
    });
  });

  it('every client reconnects on READONLY (a demoted primary) and resends; other errors are passed on', () => {
    expect(redisOptions('redis://h').reconnectOnError).toBe(reconnectOnReadonly);
    expect(redisOptions({ redisUrl: 'redis://m', redisSentinel: sentinel }).reconnectOnError).toBe(reconnectOnReadonly);
    expect(reconnectOnReadonly(new Error("READONLY You can't write against a read only replica."))).toBe(2);
    expect(reconnectOnReadonly(new Error('ERR unknown command'))).toBe(false);
  });

  it('no Redis configured is a programming error', () => {
    expect(() => redisOptions({})).toThrow(/no Redis configured/);
  });
});

describe('parseSentinels', () => {
  it('host:port, a bare host (26379), an IPv6 host in brackets; blanks dropped', () => {
    expect(parseSentinels(' a:1, b ,,[::1]:26380 ')).toEqual([
      { host: 'a', port: 1 },
      { host: 'b', port: 26379 },
      { host: '::1', port: 26380 },
    ]);
  });

  it('names the first entry that is not host:port', () => {
    expect(parseSentinels('a:1,b:x')).toBe('"b:x" is not host:port');
    expect(parseSentinels('a:70000')).toBe('"a:70000" is not host:port');
    expect(parseSentinels('::1:5')).toBe('"::1:5" is not host:port');
  });
});
