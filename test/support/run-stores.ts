import { AIMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

import { CHECKPOINT_SCHEMA } from '../../src/database/checkpoint-schema';
import { TimedPostgresSaver } from '../../src/database/checkpoint-writer';
import { ENTITIES, RunEntity, SessionEntity } from '../../src/database/entities';
import { MIGRATIONS } from '../../src/database/migrations';
import { prepareLanggraphTables } from '../../src/database/prepare-database';
import { PgRunStore } from '../../src/runs/store/pg-run-store';
import { PgSessionStore } from '../../src/runs/store/pg-session-store';
import { createTestDatabase, type TestDatabase } from './infra';

export interface RunStores {
  db: DataSource;
  pool: Pool;
  runs: PgRunStore;
  sessions: PgSessionStore;
  saver: TimedPostgresSaver;
  /** a one-node graph on `saver` that answers every message with "hello" */
  helloGraph(): ReturnType<typeof helloGraph>;
}

function helloGraph(saver: TimedPostgresSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode('answer', () => ({ messages: [new AIMessage('hello')] }))
    .addEdge(START, 'answer')
    .addEdge('answer', END)
    .compile({ checkpointer: saver });
}

/**
 * The Postgres run and session stores and the service's checkpointer on a database of their own (migrated, with
 * LangGraph's tables), for a describe block: the returned object is filled before its tests run and dropped after.
 */
export function useRunStores(name: string): RunStores {
  const stores = {} as RunStores;
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase(name);
    const db = new DataSource({ type: 'postgres', url: tdb.url, entities: ENTITIES, migrations: MIGRATIONS, poolSize: 4 });
    await db.initialize();
    await db.runMigrations();
    const pool = (db.driver as PostgresDriver).master as Pool;
    await prepareLanggraphTables(pool);
    Object.assign(stores, {
      db,
      pool,
      runs: new PgRunStore(db.getRepository(RunEntity), db),
      sessions: new PgSessionStore(db.getRepository(SessionEntity), db),
      saver: new TimedPostgresSaver(pool, CHECKPOINT_SCHEMA),
      helloGraph: () => helloGraph(stores.saver),
    });
  });
  afterAll(async () => {
    await stores.db?.destroy();
    await tdb?.drop();
  });
  return stores;
}
