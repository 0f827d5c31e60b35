import { readSlice } from '../config/settings';
import { databaseSettings } from './database.settings';

describe('database settings', () => {
  it('defaults: embedded Postgres in ./data, no Redis', () => {
    expect(readSlice(databaseSettings, {})).toEqual({
      databaseUrl: undefined,
      dataDir: './data',
      dbPoolSize: 10,
      dbPreparedStatements: true,
      migrationsRun: true,
      redisUrl: undefined,
      redisSentinel: undefined,
      startupWaitMs: 10_000,
    });
  });

  it('REDIS_SENTINELS alone configures Redis: the group name as the URL, the sentinels, their password and TLS', () => {
    expect(
      readSlice(databaseSettings, { REDIS_SENTINELS: 'a:26380, b', REDIS_SENTINEL_PASSWORD: 'sp', REDIS_SENTINEL_TLS: 'true' }),
    ).toMatchObject({
      redisUrl: 'redis://mymaster',
      redisSentinel: {
        sentinels: [
          { host: 'a', port: 26380 },
          { host: 'b', port: 26379 },
        ],
        name: 'mymaster',
        password: 'sp',
        tls: true,
      },
    });
    expect(
      readSlice(databaseSettings, { REDIS_SENTINELS: 'a:1', REDIS_SENTINEL_NAME: 'cache', REDIS_URL: 'rediss://:pw@x/2' }),
    ).toMatchObject({ redisUrl: 'rediss://:pw@x/2', redisSentinel: { name: 'cache', password: undefined, tls: false } });
    // the companions without sentinels change nothing
    expect(readSlice(databaseSettings, { REDIS_SENTINEL_NAME: 'cache' })).toMatchObject({ redisUrl: undefined, redisSentinel: undefined });
  });

  it('a bad sentinel list or name is an error naming the setting', () => {
    expect(() => readSlice(databaseSettings, { REDIS_SENTINELS: 'a:1,b:port' })).toThrow(
      'Invalid configuration: REDIS_SENTINELS: a comma-separated list of sentinel host:port; "b:port" is not host:port',
    );
    expect(() => readSlice(databaseSettings, { REDIS_SENTINELS: 'a:1', REDIS_SENTINEL_NAME: ' ' })).toThrow(/REDIS_SENTINEL_NAME: /);
    expect(() => readSlice(databaseSettings, { REDIS_SENTINEL_TLS: 'maybe' })).toThrow(/REDIS_SENTINEL_TLS: /);
  });

  it('takes postgres:// and redis:// URLs only, and says which schemes without echoing credentials', () => {
    expect(readSlice(databaseSettings, { DATABASE_URL: 'postgresql://u:p@h/db', REDIS_URL: 'rediss://h:6380' })).toMatchObject({
      databaseUrl: 'postgresql://u:p@h/db',
      redisUrl: 'rediss://h:6380',
    });
    expect(() => readSlice(databaseSettings, { DATABASE_URL: 'mysql://u:pw@h/db' })).toThrow(
      'Invalid configuration: DATABASE_URL: must be a postgres:// or postgresql:// URL; got a mysql:// URL',
    );
    expect(() => readSlice(databaseSettings, { REDIS_URL: 'not a url' })).toThrow(/REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/);
  });

  it('treats blank URLs as unset and rejects an empty pool', () => {
    expect(readSlice(databaseSettings, { DATABASE_URL: ' ', REDIS_URL: '' })).toMatchObject({
      databaseUrl: undefined,
      redisUrl: undefined,
    });
    expect(() => readSlice(databaseSettings, { DB_POOL_SIZE: '0' })).toThrow(/^Invalid configuration: DB_POOL_SIZE: /);
    expect(() => readSlice(databaseSettings, { DB_PREPARED_STATEMENTS: 'maybe' })).toThrow(/DB_PREPARED_STATEMENTS/);
  });
});
