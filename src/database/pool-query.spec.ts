import type { DataSource } from 'typeorm';
import { QueryFailedError } from 'typeorm';

import { poolQuery } from './pool-query';

function dataSourceOn(query: (sql: string, params: unknown[]) => Promise<{ rows: unknown[] }>): DataSource {
  return { driver: { master: { query } } } as unknown as DataSource;
}

describe('poolQuery', () => {
  it("runs the statement on TypeORM's own pool and returns its rows", async () => {
    const seen: Array<[string, unknown[]]> = [];
    const ds = dataSourceOn(async (sql, params) => {
      seen.push([sql, params]);
      return { rows: [{ n: 1 }] };
    });
    await expect(poolQuery(ds, 'SELECT $1::int AS n', [1])).resolves.toEqual([{ n: 1 }]);
    expect(seen).toEqual([['SELECT $1::int AS n', [1]]]);
  });

  it('throws a failure as the QueryFailedError DataSource.query throws (error mapping depends on it)', async () => {
    const cause = Object.assign(new Error('connection terminated'), { code: '57P01' });
    const ds = dataSourceOn(async () => {
      throw cause;
    });
    const err = await poolQuery(ds, 'SELECT 1', []).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueryFailedError);
    expect((err as QueryFailedError).driverError).toBe(cause);
    expect((err as QueryFailedError).query).toBe('SELECT 1');
  });
});
