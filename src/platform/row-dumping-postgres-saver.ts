import type { ChannelVersions, Checkpoint, CheckpointMetadata, CheckpointTuple, PendingWrite } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';

/**
 * LangGraph's PostgresSaver with the rows its own `put` and `putWrites` would write, for a checkpoint writer that
 * sends them in fewer statements (database/checkpoint-writer.ts), and the tuple its `getTuple` would make of a row
 * another statement read. Its serializers are protected (`_dumpBlobs`, `_dumpCheckpoint`, `_dumpMetadata`,
 * `_dumpWrites`, and the `_load…` readers): a subclass reaches them, and this is the only one that does.
 *
 * Relies on (@langchain/langgraph-checkpoint-postgres 1.0.5, @langchain/langgraph-checkpoint 1.2.2; the canary is
 * row-dumping-postgres-saver.spec.ts): those four methods existing with these signatures, `put` writing exactly
 * their rows (a blob row per new channel version, then the checkpoint row with its parent's id) and `putWrites`
 * exactly `_dumpWrites`' rows; the tables' columns and conflict keys; special channels (`WRITES_IDX_MAP`)
 * overwriting a write and the others keeping the first one. The official reader reads the rows back. `tupleOfRow`
 * is the end of `getTuple` after its SELECT_SQL (`_loadCheckpoint`, `_loadMetadata`, `_loadWrites`).
 */
export class RowDumpingPostgresSaver extends PostgresSaver {
  /** a blob row (thread_id, checkpoint_ns, channel, version, type, blob) per channel in `versions` */
  protected dumpBlobs(threadId: string, checkpointNs: string, values: Record<string, unknown>, versions: ChannelVersions) {
    return this._dumpBlobs(threadId, checkpointNs, values, versions);
  }

  /** the checkpoint column: the checkpoint without its channel values */
  protected dumpCheckpoint(checkpoint: Checkpoint) {
    return this._dumpCheckpoint(checkpoint);
  }

  /** the metadata column */
  protected dumpMetadata(metadata: CheckpointMetadata) {
    return this._dumpMetadata(metadata);
  }

  /** a row (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob) per write */
  protected dumpWrites(threadId: string, checkpointNs: string, checkpointId: string, taskId: string, writes: PendingWrite[]) {
    return this._dumpWrites(threadId, checkpointNs, checkpointId, taskId, writes);
  }

  /**
   * The tuple `getTuple` returns for the thread's latest root checkpoint, made of the row of its SELECT_SQL read by
   * another statement (database/checkpoint-tables.ts latestCheckpointSql); undefined for none. A checkpoint of a
   * version before 4 with a parent is read again by `getTuple`, which migrates its pending sends.
   */
  async tupleOfRow(threadId: string, row: TupleRow | null): Promise<CheckpointTuple | undefined> {
    if (!row) return undefined;
    const configurable = { thread_id: threadId, checkpoint_ns: '' };
    if ((row.checkpoint.v ?? 0) < 4 && row.parent_checkpoint_id != null) return this.getTuple({ configurable });
    return {
      config: { configurable: { ...configurable, checkpoint_id: row.checkpoint_id } },
      checkpoint: await this._loadCheckpoint(row.checkpoint as Omit<Checkpoint, 'channel_values'>, row.channel_values ?? []),
      metadata: await this._loadMetadata(row.metadata),
      parentConfig: row.parent_checkpoint_id ? { configurable: { ...configurable, checkpoint_id: row.parent_checkpoint_id } } : undefined,
      pendingWrites: await this._loadWrites(row.pending_writes ?? []),
    };
  }
}

/** The columns of the official SELECT_SQL that `tupleOfRow` reads. */
export interface TupleRow {
  checkpoint: { v?: number } & Record<string, unknown>;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  metadata: Record<string, unknown>;
  channel_values: [Uint8Array, Uint8Array, Uint8Array][] | null;
  pending_writes: [Uint8Array, Uint8Array, Uint8Array, Uint8Array][] | null;
}
