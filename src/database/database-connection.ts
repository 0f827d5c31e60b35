import { Logger, OnApplicationShutdown } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { EmbeddedPostgres } from './embedded-postgres';

/** Connections every pool may open against the embedded server: TypeORM + checkpointer + slack. */
const EMBEDDED_MAX_CONNECTIONS = 64;

/**
 * Where the database is: the configured `DATABASE_URL`, or an embedded Postgres started for this process.
 */
export class DatabaseConnection implements OnApplicationShutdown {
  private static readonly logger = new Logger('Database');

  private constructor(
    readonly url: string,
    readonly embedded: EmbeddedPostgres | null,
  ) {}

  static async open(config: AppConfig): Promise<DatabaseConnection> {
    if (config.databaseUrl) return new DatabaseConnection(config.databaseUrl, null);
    const dataDir = config.dataDir === ':memory:' ? null : config.dataDir;
    const embedded = await EmbeddedPostgres.start(dataDir, EMBEDDED_MAX_CONNECTIONS);
    DatabaseConnection.logger.log(`DATABASE_URL unset: embedded Postgres (PGlite) in ${dataDir ?? 'memory'}`);
    return new DatabaseConnection(embedded.url, embedded);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.embedded?.stop();
  }
}
