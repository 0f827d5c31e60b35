import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';

import type { AppConfig } from '../config/app-config';
import { CHECKPOINT_SCHEMA } from './checkpoint-schema';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';
import { typeormPool } from './pool-query';
import { createPostgresStore } from './store/store.module';

/**
 * The schema steps of an API process's start-up (the shipped migrations unless DB_MIGRATIONS_RUN=false,
 * LangGraph's checkpoint and store tables), run once by cluster.ts before it starts several API processes on
 * DATABASE_URL: run by all of them at the same instant they race — TypeORM takes no lock, and of two
 * `CREATE SCHEMA IF NOT EXISTS` or `CREATE TABLE IF NOT EXISTS` one can fail on the catalog's unique index.
 * Afterwards each process finds the tables there and its own setup changes nothing.
 */
export async function prepareDatabase(config: Pick<AppConfig, 'databaseUrl' | 'migrationsRun'>): Promise<void> {
  const ds = await new DataSource({ type: 'postgres', url: config.databaseUrl, entities: ENTITIES, migrations: MIGRATIONS }).initialize();
  try {
    if (config.migrationsRun) await ds.runMigrations();
    await prepareLanggraphTables(typeormPool(ds));
  } finally {
    await ds.destroy();
  }
}

/**
 * LangGraph's checkpoint and store tables (each process's start-up creates them too, when missing): created
 * ahead, by cluster.ts or the migrate command, processes starting together find them and create nothing.
 */
export async function prepareLanggraphTables(pool: Pool): Promise<void> {
  await new PostgresSaver(pool, undefined, { schema: CHECKPOINT_SCHEMA }).setup();
  await createPostgresStore(pool);
}
