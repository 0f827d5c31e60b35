import { Logger } from '@nestjs/common';
import type { Logger as TypeOrmLogger } from 'typeorm';

/**
 * TypeORM's own lines (migrations run or failed, warnings) through Nest's logger, so they are JSON lines like
 * every other; queries and failed queries are not logged (a failed query surfaces as the error it throws).
 */
export class TypeOrmToNestLogger implements TypeOrmLogger {
  private readonly logger = new Logger('TypeORM');

  logQuery(): void {}
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}

  logMigration(message: string): void {
    this.logger.log(message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.logger.warn(String(message));
    else this.logger.log(String(message));
  }
}
