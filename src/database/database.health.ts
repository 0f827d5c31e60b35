import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import type { HealthIndicator } from '../observability/health-indicator';
import { ORCHESTRATOR_DATA_SOURCE } from './data-source-name';

/** Readiness of the database: a `SELECT 1` answers. */
@Injectable()
export class DatabaseHealthIndicator implements HealthIndicator {
  readonly name = 'database';

  constructor(@InjectDataSource(ORCHESTRATOR_DATA_SOURCE) private readonly dataSource: DataSource) {}

  configured(): boolean {
    return true;
  }

  check(): Promise<boolean> {
    return this.dataSource.query('SELECT 1').then(() => true);
  }
}
