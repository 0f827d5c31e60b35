import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import type { HealthIndicator } from '../observability/health-indicator';

/** Readiness of the database: a `SELECT 1` answers. */
@Injectable()
export class DatabaseHealthIndicator implements HealthIndicator {
  readonly name = 'database';

  constructor(private readonly dataSource: DataSource) {}

  configured(): boolean {
    return true;
  }

  check(): Promise<boolean> {
    return this.dataSource.query('SELECT 1').then(() => true);
  }
}
