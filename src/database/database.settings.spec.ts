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
    });
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
