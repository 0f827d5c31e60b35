import { Logger } from '@nestjs/common';
import type { Pool } from 'pg';

import { CHECKPOINT_SCHEMA } from '../checkpoint-schema';

/** Items deleted per statement, and statements per sweep, at most (the rest waits for the next sweep). */
export const SWEEP_BATCH = 500;
export const SWEEP_MAX_BATCHES = 20;

/** The advisory lock one sweeper of the cluster holds for its transaction (`hashtext('store-ttl-sweeper')`). */
const LOCK = `hashtext('store-ttl-sweeper')`;

/**
 * Deletes expired store items, with their vectors, pending markers and owners, once per cluster: a sweep is one
 * transaction that first takes a transaction-level advisory lock (`pg_try_advisory_xact_lock`, which works
 * through PgBouncer's transaction pooling); a process that does not get it skips the round. Bounded: at most
 * SWEEP_MAX_BATCHES statements of SWEEP_BATCH items. Expired items are invisible to reads before they are swept.
 */
export class StoreSweeper {
  private readonly logger = new Logger('StoreSweeper');
  private timer?: NodeJS.Timeout;

  constructor(private readonly pool: Pool) {}

  /** Sweeps every `minutes` (fractions allowed) until stop(). */
  start(minutes: number): void {
    this.timer = setInterval(
      () => void this.sweep().catch((err: Error) => this.logger.warn(`store TTL sweep failed: ${err.message}`)),
      Math.max(1000, minutes * 60_000),
    );
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One sweep: the number of items deleted, or null when another process holds the lock. */
  async sweep(): Promise<number | null> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock(${LOCK}) AS locked`);
      if (!rows[0].locked) {
        await client.query('ROLLBACK');
        return null;
      }
      let deleted = 0;
      for (let n = 0; n < SWEEP_MAX_BATCHES; n++) {
        const { rows: batch } = await client.query<{ n: number }>(
          `WITH gone AS (
             DELETE FROM "${CHECKPOINT_SCHEMA}".store s USING (
               SELECT namespace_path, key FROM "${CHECKPOINT_SCHEMA}".store
                WHERE expires_at IS NOT NULL AND expires_at <= CURRENT_TIMESTAMP LIMIT $1) e
              WHERE s.namespace_path = e.namespace_path AND s.key = e.key
             RETURNING s.namespace_path, s.key),
           v AS (DELETE FROM store_vectors t USING gone WHERE t.namespace_path = gone.namespace_path AND t.key = gone.key),
           p AS (DELETE FROM store_index_pending t USING gone WHERE t.namespace_path = gone.namespace_path AND t.key = gone.key),
           o AS (DELETE FROM store_owners t USING gone WHERE t.prefix = gone.namespace_path AND t.key = gone.key)
           SELECT count(*)::int AS n FROM gone`,
          [SWEEP_BATCH],
        );
        deleted += batch[0].n;
        if (batch[0].n < SWEEP_BATCH) break;
      }
      await client.query('COMMIT');
      if (deleted > 0) this.logger.log(`store TTL sweep: ${deleted} expired items deleted`);
      return deleted;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}
