import type { BaseStore } from '@langchain/langgraph';
import { PostgresStore } from '@langchain/langgraph-checkpoint-postgres/store';
import { Module } from '@nestjs/common';
import type { Pool } from 'pg';

import { CHECKPOINT_SCHEMA } from '../checkpoint-schema';
import { PG_POOL } from '../pg-pool';
import { StoreOwners } from './store-owners';

/** The service's one LangGraph store (a `BaseStore`): per tenant through `TenantStore` or `StoreService`. */
export const LANGGRAPH_STORE = Symbol('LANGGRAPH_STORE');

/**
 * LangGraph's long-term memory store on Postgres (`PostgresStore`, tables `langgraph.store*`, created at
 * start-up), on the service's pool. PostgresStore opens a pool of its own; it runs on the service's pool
 * instead, which on the embedded Postgres must be the only one (see database.module.ts). Its own pool never
 * connected; it is closed unused.
 */
export async function createPostgresStore(pool: Pool): Promise<PostgresStore> {
  const store = new PostgresStore({ connectionOptions: { max: 1 }, schema: CHECKPOINT_SCHEMA, ensureTables: true });
  const core = (store as unknown as { core: { pool: Pool } }).core;
  void core.pool.end().catch(() => undefined);
  core.pool = pool;
  await store.setup();
  return store;
}

/**
 * The store (and who put its items: StoreOwners), created once at start-up where both the LangGraph API (`/store`) and the orchestrator (which
 * hands graphs their tenant's view as `config.store`) reach it, without either importing the other.
 */
@Module({
  providers: [
    { provide: LANGGRAPH_STORE, inject: [PG_POOL], useFactory: (pool: Pool): Promise<BaseStore> => createPostgresStore(pool) },
    { provide: StoreOwners, inject: [PG_POOL], useFactory: (pool: Pool) => new StoreOwners(pool) },
  ],
  exports: [LANGGRAPH_STORE, StoreOwners],
})
export class StoreModule {}
