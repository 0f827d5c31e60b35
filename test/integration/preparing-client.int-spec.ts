import { Pool } from 'pg';

import { PreparingClient } from '../../src/platform/preparing-client';
import { createTestDatabase, type TestDatabase } from '../support/infra';

/** Parameterised statements become named prepared statements of the connection; results are unchanged. */
describe('PreparingClient', () => {
  let db: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    db = await createTestDatabase('preparing');
    pool = new Pool({ connectionString: db.url, max: 1, Client: PreparingClient });
  });

  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  const prepared = async () =>
    (await pool.query(`SELECT statement FROM pg_prepared_statements ORDER BY prepare_time`)).rows.map(
      (r: { statement: string }) => r.statement,
    );

  it('prepares a statement with parameters once per connection, through pool.query and client.query, callbacks too', async () => {
    const sql = `SELECT $1::int + $2::int AS sum`;
    expect((await pool.query(sql, [2, 3])).rows).toEqual([{ sum: 5 }]);
    expect((await pool.query(sql, [4, 5])).rows).toEqual([{ sum: 9 }]);
    const client = await pool.connect();
    try {
      const viaCallback = await new Promise((resolve, reject) =>
        client.query(sql, [1, 1], (err: Error | null, res: { rows: unknown[] }) => (err ? reject(err) : resolve(res.rows))),
      );
      expect(viaCallback).toEqual([{ sum: 2 }]);
    } finally {
      client.release();
    }
    expect(await prepared()).toEqual([sql]); // one statement, and the catalogue query (no parameters) is not prepared
  });

  it('a failing statement reports its error and leaves the connection usable', async () => {
    await expect(pool.query(`SELECT 1 / $1::int AS x`, [0])).rejects.toThrow(/division by zero/);
    expect((await pool.query(`SELECT 1 / $1::int AS x`, [1])).rows).toEqual([{ x: 1 }]);
  });
});
