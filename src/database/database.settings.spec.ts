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
      startupWaitMs: 10_000,
    });
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
