import type { Pool } from 'pg';
import { type DataSource, QueryFailedError } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * The rows of one statement run on TypeORM's own `pg` pool, without a TypeORM QueryRunner: for the statements
 * every turn makes (a run's admission and its end). `DataSource.query` builds a QueryRunner per call (its
 * connection promise, broadcaster, logger hooks, QueryResult, release) for what is one `pool.query` here. The
 * same pool, hence the same connections, limit and prepared statements (the embedded Postgres's one connection
 * too); a failure is thrown as the QueryFailedError `DataSource.query` throws, so error mapping is unchanged.
 */
export async function poolQuery<T>(dataSource: DataSource, sql: string, params: unknown[]): Promise<T[]> {
  const pool = typeormPool(dataSource);
  try {
    return (await pool.query(sql, params)).rows as T[];
  } catch (e) {
    throw new QueryFailedError(sql, params, e as Error);
  }
}

/** TypeORM's own `pg` pool of a Postgres DataSource (its connections, limit and prepared statements). */
export function typeormPool(dataSource: DataSource): Pool {
  return (dataSource.driver as PostgresDriver).master as Pool;
}
