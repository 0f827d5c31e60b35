import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

import { ENTITIES, RunEntity, SessionEntity } from '../../src/database/entities';
import { MIGRATIONS } from '../../src/database/migrations';
import { prepareLanggraphTables } from '../../src/database/prepare-database';
import { PgRunStore } from '../../src/runs/store/pg-run-store';
import { PgSessionStore } from '../../src/runs/store/pg-session-store';
import { describeRunStoreContract } from '../../src/runs/store/run-store.contract';
import { createTestDatabase } from '../support/infra';

/** The run store's contract on Postgres: the same suite as the in-memory store's (src/runs/store/run-store.contract.spec.ts). */
describeRunStoreContract('postgres', async () => {
  const tdb = await createTestDatabase('run_store_contract');
  const db = new DataSource({ type: 'postgres', url: tdb.url, entities: ENTITIES, migrations: MIGRATIONS, poolSize: 4 });
  await db.initialize();
  await db.runMigrations();
  await prepareLanggraphTables((db.driver as PostgresDriver).master as Pool); // deleteRun and leaseAndStart read the checkpoints
  return {
    runs: new PgRunStore(db.getRepository(RunEntity), db),
    sessions: new PgSessionStore(db.getRepository(SessionEntity), db),
    close: async () => {
      await db.destroy();
      await tdb.drop();
    },
  };
});
