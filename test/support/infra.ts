import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';

import { Client } from 'pg';

/** The local Postgres and Redis every test machine runs (see TOOLING.md); overridable for other setups. */
export const TEST_PG_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Set for the tier that runs through PgBouncer (scripts/test.ts starts one in front of TEST_PG_URL's server,
 * test/support/pgbouncer.ts): the host:port the service reaches its databases at. Unset: Postgres directly.
 */
export const TEST_PGBOUNCER = process.env.TEST_PGBOUNCER;

/** What the service is told behind PgBouncer in transaction mode (1.18: no prepared statements across transactions). */
export const DB_VIA_ENV: Record<string, string> = TEST_PGBOUNCER ? { DB_PREPARED_STATEMENTS: 'false' } : {};

/** A database URL as the service reaches it: through PgBouncer in that tier, else unchanged. */
export function serviceDbUrl(url: string): string {
  if (!TEST_PGBOUNCER) return url;
  const u = new URL(url);
  u.host = TEST_PGBOUNCER;
  return u.toString();
}

export interface TestDatabase {
  name: string;
  /** the URL the service and the test's own queries use: through PgBouncer in that tier */
  url: string;
  drop(): Promise<void>;
}

/** A fresh database per test file, so suites run in parallel workers without sharing state. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = `t_${label.replace(/\W/g, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_PG_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: serviceDbUrl(url.toString()),
    drop: async () => {
      const c = new Client({ connectionString: TEST_PG_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** A queue prefix of its own per test file, so parallel suites never take each other's jobs. */
export function uniqueQueuePrefix(label: string): string {
  return `test_${label}_${randomBytes(4).toString('hex')}`;
}

/** A TCP port nothing listens on at the moment (on 127.0.0.1). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
