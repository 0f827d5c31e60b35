import type { ChannelVersions, Checkpoint, CheckpointMetadata, PendingWrite } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';

/**
 * LangGraph's PostgresSaver with the rows its own `put` and `putWrites` would write, for a checkpoint writer that
 * sends them in fewer statements (database/checkpoint-writer.ts). Its serializers are protected (`_dumpBlobs`,
 * `_dumpCheckpoint`, `_dumpMetadata`, `_dumpWrites`): a subclass reaches them, and this is the only one that does.
 *
 * Relies on (@langchain/langgraph-checkpoint-postgres 1.0.5, @langchain/langgraph-checkpoint 1.2.2; the canary is
 * row-dumping-postgres-saver.spec.ts): those four methods existing with these signatures, `put` writing exactly
 * their rows (a blob row per new channel version, then the checkpoint row with its parent's id) and `putWrites`
 * exactly `_dumpWrites`' rows; the tables' columns and conflict keys; special channels (`WRITES_IDX_MAP`)
 * overwriting a write and the others keeping the first one. The official reader reads the rows back.
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
}
