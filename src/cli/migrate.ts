#!/usr/bin/env node
import 'reflect-metadata';
import '../settings/all-settings'; // the settings slices AppConfig is built from

import { DataSource } from 'typeorm';

import { AppConfig } from '../config/app-config';
import { ENTITIES } from '../database/entities';
import { MIGRATIONS } from '../database/migrations';
import { typeormPool } from '../database/pool-query';
import { prepareLanggraphTables } from '../database/prepare-database';

/**
 * `agent-orchestrator-migrate`: runs the shipped migrations against DATABASE_URL (hosts that set `migrationsRun:
 * false`, the Kubernetes migrations Job), then creates LangGraph's checkpoint and store tables where missing, so
 * that processes starting together afterwards (several pods) do not race to create them.
 */
async function main(): Promise<void> {
  const config = new AppConfig(process.env);
  if (!config.databaseUrl) throw new Error('DATABASE_URL is required');
  const ds = await new DataSource({ type: 'postgres', url: config.databaseUrl, entities: ENTITIES, migrations: MIGRATIONS }).initialize();
  try {
    const ran = await ds.runMigrations({ transaction: 'each' });
    await prepareLanggraphTables(typeormPool(ds));
    console.log(ran.length ? `applied: ${ran.map((m) => m.name).join(', ')}` : 'up to date');
  } finally {
    await ds.destroy();
  }
}

main().catch((err: Error) => {
  console.error(`migration failed: ${err.message}`);
  process.exit(1);
});
