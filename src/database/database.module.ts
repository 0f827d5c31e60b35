import { Global, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Pool } from 'pg';
import { AppConfig } from '../config/app-config';
import { DatabaseConnection } from './database-connection';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';
import { PG_POOL, PgPoolCloser } from './pg-pool';

/** One connection target per process (possibly an embedded server) and the raw pool on it. */
@Global()
@Module({
  providers: [
    { provide: DatabaseConnection, inject: [AppConfig], useFactory: (c: AppConfig) => DatabaseConnection.open(c) },
    {
      provide: PG_POOL,
      inject: [DatabaseConnection],
      useFactory: (db: DatabaseConnection) => {
        const pool = new Pool({ connectionString: db.url, max: db.poolSize(5), connectionTimeoutMillis: 5000 });
        // an idle connection dropped by the server must not crash the process; the pool reconnects on demand
        pool.on('error', (err) => new Logger('Database').warn(`idle connection lost: ${err.message}`));
        return pool;
      },
    },
    PgPoolCloser,
  ],
  exports: [DatabaseConnection, PG_POOL],
})
class DatabaseCoreModule {}

@Global()
@Module({
  imports: [
    DatabaseCoreModule,
    TypeOrmModule.forRootAsync({
      imports: [DatabaseCoreModule],
      inject: [DatabaseConnection, AppConfig],
      useFactory: (db: DatabaseConnection, config: AppConfig) => ({
        type: 'postgres' as const,
        url: db.url,
        entities: ENTITIES,
        migrations: MIGRATIONS,
        migrationsRun: true,
        synchronize: false,
        poolSize: db.poolSize(config.dbPoolSize),
        extra: { connectionTimeoutMillis: 5000 },
        retryAttempts: 3,
        retryDelay: 500,
      }),
    }),
    TypeOrmModule.forFeature(ENTITIES),
  ],
  exports: [TypeOrmModule, DatabaseCoreModule],
})
export class DatabaseModule {}
