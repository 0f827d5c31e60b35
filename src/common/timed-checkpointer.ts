import type { RunnableConfig } from '@langchain/core/runnables';
import { type CheckpointTuple, WRITES_IDX_MAP } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type { Pool } from 'pg';

import { phase } from './phases';

type Put = PostgresSaver['put'];

/** `configurable` key of a run's OpeningRead */
export const OPENING_READ_KEY = 'opening_read';

/**
 * A thread's root checkpoint as a run found it before starting its graph — read once for the orchestrator's
 * own needs, or known absent (a thread created by the run) — handed to the graph's opening read instead of a
 * second query. Claimed once: later reads go to the database.
 */
export class OpeningRead {
  private claimed = false;
  constructor(readonly tuple: CheckpointTuple | undefined) {}

  claim(): boolean {
    if (this.claimed) return false;
    this.claimed = true;
    return true;
  }
}
type PutWrites = PostgresSaver['putWrites'];

/**
 * LangGraph's Postgres checkpointer, writing in one round trip. The official `put` sends BEGIN, one upsert per
 * changed channel, the checkpoint and COMMIT one after another (a react turn: ~14 round trips); `putWrites`
 * likewise per write. Here each is one statement with the same upserts (rows passed as arrays, `unnest`), which
 * Postgres applies atomically — the same rows and conflict rules, read back unchanged by the official reader.
 * Reads and writes are timed into the request's phases (PHASE_TIMINGS).
 */
export class TimedPostgresSaver extends PostgresSaver {
  private readonly putSql: string;
  private readonly upsertWritesSql: string;
  private readonly insertWritesSql: string;

  constructor(
    private readonly db: Pool,
    schema: string,
  ) {
    super(db, undefined, { schema });
    const t = (table: string) => `"${schema}".${table}`;
    this.putSql = `WITH blobs AS (
        INSERT INTO ${t('checkpoint_blobs')} (thread_id, checkpoint_ns, channel, version, type, blob)
        SELECT $1, $2, b.channel, b.version, b.type, b.blob
        FROM unnest($3::text[], $4::text[], $5::text[], $6::bytea[]) AS b(channel, version, type, blob)
        ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING
      )
      INSERT INTO ${t('checkpoints')} (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
      VALUES ($1, $2, $7, $8, $9, $10)
      ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata`;
    const writes = `INSERT INTO ${t('checkpoint_writes')} (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
      SELECT $1, $2, $3, $4, w.idx, w.channel, w.type, w.blob
      FROM unnest($5::int[], $6::text[], $7::text[], $8::bytea[]) AS w(idx, channel, type, blob)
      ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)`;
    this.upsertWritesSql = `${writes} DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob`;
    this.insertWritesSql = `${writes} DO NOTHING`;
  }

  override getTuple(config: RunnableConfig): ReturnType<PostgresSaver['getTuple']> {
    const c = config.configurable;
    const opening = c?.[OPENING_READ_KEY];
    if (opening instanceof OpeningRead && !c?.checkpoint_ns && !c?.checkpoint_id && opening.claim()) return Promise.resolve(opening.tuple);
    return phase('checkpoint_read', () => super.getTuple(config));
  }

  override put(...[config, checkpoint, metadata, newVersions]: Parameters<Put>): ReturnType<Put> {
    return phase('checkpoint_write', async () => {
      if (config.configurable === undefined) throw new Error('Missing "configurable" field in "config" param');
      const { thread_id, checkpoint_ns = '', checkpoint_id } = config.configurable as Record<string, string | undefined>;
      const [blobs, meta] = await Promise.all([
        this._dumpBlobs(thread_id!, checkpoint_ns, checkpoint.channel_values, newVersions),
        this._dumpMetadata(metadata),
      ]);
      await this.db.query(this.putSql, [
        thread_id,
        checkpoint_ns,
        blobs.map((b) => b[2]),
        blobs.map((b) => b[3]),
        blobs.map((b) => b[4]),
        blobs.map((b) => b[5] ?? null),
        checkpoint.id,
        checkpoint_id,
        this._dumpCheckpoint(checkpoint),
        meta,
      ]);
      return { configurable: { thread_id, checkpoint_ns, checkpoint_id: checkpoint.id } };
    });
  }

  override putWrites(...[config, writes, taskId]: Parameters<PutWrites>): ReturnType<PutWrites> {
    return phase('checkpoint_write_pending', async () => {
      const { thread_id, checkpoint_ns, checkpoint_id } = (config.configurable ?? {}) as Record<string, string>;
      const dumped = await this._dumpWrites(thread_id, checkpoint_ns, checkpoint_id, taskId, writes);
      if (dumped.length === 0) return;
      // as the official saver: special channels (errors, interrupts…) overwrite, the others keep the first write
      const sql = writes.every(([channel]) => channel in WRITES_IDX_MAP) ? this.upsertWritesSql : this.insertWritesSql;
      await this.db.query(sql, [
        thread_id,
        checkpoint_ns,
        checkpoint_id,
        taskId,
        dumped.map((w) => w[4]),
        dumped.map((w) => w[5]),
        dumped.map((w) => w[6]),
        dumped.map((w) => w[7]),
      ]);
    });
  }
}
