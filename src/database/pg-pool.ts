import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'pg';

/** A plain `pg` pool on the service's database, for LangGraph's PostgresSaver and raw SQL (search, locks). */
export const PG_POOL = Symbol('PG_POOL');

@Injectable()
export class PgPoolCloser implements OnApplicationShutdown {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}
