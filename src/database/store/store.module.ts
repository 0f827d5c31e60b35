import type { BaseStore } from '@langchain/langgraph';
import { PostgresStore } from '@langchain/langgraph-checkpoint-postgres/store';
import { Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import type { Pool } from 'pg';

import { AppConfig } from '../../config/app-config';
import { MetricsService } from '../../observability/metrics.service';
import { CHECKPOINT_SCHEMA } from '../checkpoint-schema';
import { PG_POOL } from '../pg-pool';
import { readStorageConfig, type StoreTtlConfig } from '../storage-config';
import { createStoreEmbedder, EmbeddingCounters } from './embedder';
import { PENDING_STALE_MS, SemanticIndex } from './semantic-index';
import { SemanticStore } from './semantic-store';
import { LANGGRAPH_STORE } from './store.tokens';
import { StoreIndexHealthIndicator } from './store-index.health';
import { StoreOwners } from './store-owners';
import { StoreSweeper } from './store-sweeper';
import { VectorTable } from './vector-table';

export { LANGGRAPH_STORE } from './store.tokens';

/**
 * LangGraph's long-term memory store on Postgres (`PostgresStore`, tables `langgraph.store*`, created at
 * start-up), on the service's pool. PostgresStore opens a pool of its own; it runs on the service's pool
 * instead, which on the embedded Postgres must be the only one (see database.module.ts). Its own pool never
 * connected; it is closed unused. `ttl`: only the default TTL is PostgresStore's (its per-process sweeper and
 * its refresh to the default TTL are not used: StoreSweeper and SemanticStore do both).
 */
export async function createPostgresStore(pool: Pool, ttl?: StoreTtlConfig): Promise<PostgresStore> {
  const store = new PostgresStore({
    connectionOptions: { max: 1 },
    schema: CHECKPOINT_SCHEMA,
    ensureTables: true,
    ...(ttl?.defaultTtl ? { ttl: { defaultTtl: ttl.defaultTtl } } : {}),
  });
  const core = (store as unknown as { core: { pool: Pool } }).core;
  void core.pool.end().catch(() => undefined);
  core.pool = pool;
  await store.setup();
  return store;
}

/**
 * The store with its semantic index (when langgraph.json's `store.index` or EMBEDDINGS_* configure one) and its
 * TTL settings, from the configuration. The index is started (configuration compared, pending items resumed).
 */
export async function createServiceStore(pool: Pool, config: AppConfig, metrics?: MetricsService): Promise<SemanticStore> {
  const storage = readStorageConfig(config.langgraphConfig);
  const inner = await createPostgresStore(pool, storage.storeTtl);
  const embedder = createStoreEmbedder(storage.index, config, storage.dir, new EmbeddingCounters(metrics?.registry));
  let index: SemanticIndex | undefined;
  if (embedder) {
    index = new SemanticIndex(new VectorTable(pool, await VectorTable.hasPgvector(pool)), embedder, config.storeEmbedWaitMs);
    await index.start();
  }
  return new SemanticStore(inner, pool, index, storage.storeTtl?.refreshOnRead ?? false);
}

/** How long shutdown waits for embeddings in flight. */
const SHUTDOWN_WAIT_MS = 5000;

/** Runs the TTL sweeper (with `store.ttl`) and the pending items' re-embedding, and stops both on shutdown. */
@Injectable()
export class StoreBackground implements OnApplicationShutdown {
  readonly sweeper: StoreSweeper;
  private readonly retry?: NodeJS.Timeout;

  constructor(
    @Inject(LANGGRAPH_STORE) private readonly store: SemanticStore,
    @Inject(PG_POOL) pool: Pool,
    config: AppConfig,
  ) {
    this.sweeper = new StoreSweeper(pool);
    const ttl = readStorageConfig(config.langgraphConfig).storeTtl;
    if (ttl) this.sweeper.start(ttl.sweepIntervalMinutes);
    const index = store.index;
    if (index) {
      this.retry = setInterval(() => void index.drainPending(), PENDING_STALE_MS);
      this.retry.unref();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.sweeper.stop();
    clearInterval(this.retry);
    await this.store.stop();
    // embeddings still in flight finish (or fail) before the pool closes, a bounded time
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_WAIT_MS)));
    await Promise.race([this.store.index?.idle(), bound]).finally(() => clearTimeout(timer));
  }
}

/**
 * The store (and who put its items: StoreOwners), created once at start-up where both the LangGraph API (`/store`) and the orchestrator (which
 * hands graphs their tenant's view as `config.store`) reach it, without either importing the other.
 */
@Module({
  providers: [
    {
      provide: LANGGRAPH_STORE,
      inject: [PG_POOL, AppConfig, { token: MetricsService, optional: true }],
      useFactory: (pool: Pool, config: AppConfig, metrics?: MetricsService): Promise<BaseStore> =>
        createServiceStore(pool, config, metrics),
    },
    { provide: StoreOwners, inject: [PG_POOL], useFactory: (pool: Pool) => new StoreOwners(pool) },
    StoreBackground,
    StoreIndexHealthIndicator,
  ],
  exports: [LANGGRAPH_STORE, StoreOwners, StoreIndexHealthIndicator, StoreBackground],
})
export class StoreModule {}
