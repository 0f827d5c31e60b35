import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';

import { AppConfig } from '../config/app-config';
import { PreparingClient } from '../platform/preparing-client';
import { ORCHESTRATOR_DATA_SOURCE } from './data-source-name';
import { DatabaseHealthIndicator } from './database.health';
import { DatabaseConnection } from './database-connection';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';
import { PG_POOL } from './pg-pool';
import { typeormPool } from './pool-query';
import { TypeOrmToNestLogger } from './typeorm-logger';

/** One connection target per process (possibly an embedded server). */
@Global()
@Module({
  providers: [{ provide: DatabaseConnection, inject: [AppConfig], useFactory: (c: AppConfig) => DatabaseConnection.open(c) }],
  exports: [DatabaseConnection],
})
class DatabaseCoreModule {}

/**
 * The raw `pg` pool for LangGraph's PostgresSaver. On a real server it is a pool of its own. On the embedded
 * Postgres it is TypeORM's pool, limited to one connection: PGlite serves every socket from one session and
 * interleaves concurrent connections' protocol messages, so all queries must go through a single connection.
 */
function pgPoolFactory(dataSource: DataSource, db: DatabaseConnection, config: AppConfig): Pool {
  if (db.embedded) return typeormPool(dataSource);
  const Client = config.dbPreparedStatements ? PreparingClient : undefined;
  const pool = new Pool({ connectionString: db.url, max: 5, connectionTimeoutMillis: 5000, ...(Client ? { Client } : {}) });
  // an idle connection dropped by the server must not crash the process; the pool reconnects on demand
  pool.on('error', (err) => new Logger('Database').warn(`idle connection lost: ${err.message}`));
  return pool;
}

@Injectable()
class PgPoolCloser implements OnApplicationShutdown {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly db: DatabaseConnection,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    if (!this.db.embedded) await this.pool.end(); // the embedded one is TypeORM's, closed by TypeORM
  }
}

@Global()
@Module({
  imports: [
    DatabaseCoreModule,
    TypeOrmModule.forRootAsync({
      name: ORCHESTRATOR_DATA_SOURCE,
      imports: [DatabaseCoreModule],
      inject: [DatabaseConnection, AppConfig],
      useFactory: (db: DatabaseConnection, config: AppConfig) => ({
        name: ORCHESTRATOR_DATA_SOURCE, // again here: on shutdown @nestjs/typeorm finds the data source by these options' name
        type: 'postgres' as const,
        url: db.url,
        entities: ENTITIES,
        migrations: MIGRATIONS,
        migrationsRun: config.migrationsRun,
        synchronize: false,
        poolSize: db.embedded ? 1 : config.dbPoolSize,
        extra: {
          connectionTimeoutMillis: db.embedded ? 60_000 : 5000,
          ...(config.dbPreparedStatements ? { Client: PreparingClient } : {}),
        },
        logger: new TypeOrmToNestLogger(),
        retryAttempts: 2, // main.ts and worker.ts waited for DATABASE_URL already (service-probe.ts)
        retryDelay: 500,
      }),
    }),
    TypeOrmModule.forFeature(ENTITIES, ORCHESTRATOR_DATA_SOURCE),
  ],
  providers: [
    { provide: PG_POOL, inject: [getDataSourceToken(ORCHESTRATOR_DATA_SOURCE), DatabaseConnection, AppConfig], useFactory: pgPoolFactory },
    PgPoolCloser,
    DatabaseHealthIndicator,
  ],
  exports: [TypeOrmModule, DatabaseCoreModule, PG_POOL, DatabaseHealthIndicator],
})
export class DatabaseModule {}
