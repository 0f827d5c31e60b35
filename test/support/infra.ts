import { randomBytes } from 'node:crypto';

import { Client } from 'pg';

/** The local Postgres and Redis every test machine runs (see TOOLING.md); overridable for other setups. */
export const TEST_PG_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestDatabase {
  name: string;
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
    url: url.toString(),
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
