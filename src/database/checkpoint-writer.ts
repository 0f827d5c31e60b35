import type { RunnableConfig } from '@langchain/core/runnables';
import { type CheckpointMetadata, type CheckpointTuple, WRITES_IDX_MAP } from '@langchain/langgraph-checkpoint';
import type { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type { Pool } from 'pg';

import { runContextOf } from '../core/run-context';
import { type RunAttempt, runAttemptOf, runHeld, RunSuperseded } from '../core/run-fence';
import { phase } from '../observability/phases';
import { RowDumpingPostgresSaver } from '../platform/row-dumping-postgres-saver';
import { checkpointCtes, deleteThread, putCheckpointsSql, putWritesSql } from './checkpoint-tables';

type Put = PostgresSaver['put'];

declare module '../core/run-context' {
  interface RunContext {
    /** the thread's root checkpoint as the run found it (read once, handed to the graph's opening read) */
    openingRead?: OpeningRead;
    /** the run's pending writes, held for its next checkpoint */
    pendingWrites?: PendingWrites;
  }
}

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

/** A pending write's row (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob) and its conflict rule */
type WriteRow = [string, string, string, string, number, string, string, Uint8Array, upsert: boolean];
/** A checkpoint's blob rows (thread_id, checkpoint_ns, channel, version, type, blob) and its own row */
interface PutRows {
  /** the checkpoint's channel values as the loop put them (not serialized): the state at that checkpoint */
  values: Record<string, unknown>;
  blobs: unknown[][];
  checkpoint: [
    thread_id: string,
    checkpoint_ns: string,
    checkpoint_id: string,
    parent: string | undefined,
    checkpoint: unknown,
    metadata: unknown,
  ];
}

/**
 * A run's pending writes (each task's output, error or interrupt), held from `putWrites` until the next `put`
 * writes them in its own statement: the loop puts the next checkpoint as soon as a step's tasks end, so a react
 * turn sends half the statements. Rows keep their own checkpoint (a put may carry writes made against its
 * parent, or in another namespace). What no put takes within `windowMs` of the last put's end is written on its
 * own (the loop chains its puts: one under way is followed by the next), and the run calls `flush()` when its
 * graph ends: nothing stays held once a run is over, and a write's failure is not lost.
 *
 * `holdPuts` (a run with durability `async`, which does not wait for its checkpoints): the checkpoints are held
 * too, and what a run puts within `windowMs` goes out in one statement — the steps between two model calls
 * (a react turn's input and InputNode, or ToolNode after LlmNode) cost one round trip instead of one each. A
 * read through the run's config writes what is held first; a crash loses at most that window, which re-runs
 * its steps as a crash before an `async` write returns does.
 */
export class PendingWrites {
  private held: Promise<WriteRow[]>[] = [];
  private puts: Promise<PutRows>[] = [];
  private saver?: TimedPostgresSaver;
  private putting = 0;
  private timer?: NodeJS.Timeout;
  private readonly writing = new Set<Promise<unknown>>();
  private failure?: { error: unknown };
  /** the run attempt its statements are fenced by (from the first config that holds something) */
  private attempt?: RunAttempt;

  /**
   * `holdFinal` (a run with durability `exit`, whose one checkpoint is its last): that checkpoint is held until the
   * run takes it (`takeFinal`) to write with its end, in the statement that records the run's end — or written by
   * `flush` / `settle` as any other.
   */
  constructor(
    private readonly windowMs = 20,
    readonly holdPuts = false,
    private readonly holdFinal = false,
  ) {}

  /** Whether checkpoints may be held (a read through the run's config writes them first). */
  get holdsCheckpoints(): boolean {
    return this.holdPuts || this.holdFinal;
  }

  /** Holds a batch for the first saver that uses this buffer; false for another saver (it writes at once). */
  hold(saver: TimedPostgresSaver, rows: Promise<WriteRow[]>, attempt?: RunAttempt): boolean {
    if ((this.saver ??= saver) !== saver) return false;
    this.attempt ??= attempt;
    this.held.push(rows);
    this.arm();
    return true;
  }

  /** Holds a checkpoint (holdPuts) for the first saver that uses this buffer; false otherwise (it is written at once). */
  holdPut(saver: TimedPostgresSaver, rows: Promise<PutRows>, attempt?: RunAttempt): boolean {
    if (!(this.holdPuts || this.holdFinal) || (this.saver ??= saver) !== saver) return false;
    this.attempt ??= attempt;
    this.puts.push(rows);
    this.arm();
    return true;
  }

  /** Runs `saver`'s put with what is held, to write in its statement. */
  async carrying<T>(saver: TimedPostgresSaver, put: (held: Promise<WriteRow[]>[]) => Promise<T>): Promise<T> {
    if ((this.saver ??= saver) !== saver) return put([]);
    this.putting += 1;
    try {
      return await put(this.take().writes);
    } finally {
      this.putting -= 1;
      this.arm();
    }
  }

  /**
   * The checkpoints held (`holdFinal`) and the writes held with them, no longer held: for the caller to write in a
   * statement of its own (FinalCheckpoint). Waits for the writes under way first, and throws their failure (as
   * `flush`). Undefined when no checkpoint is held (what else is held is then written, as by `flush`).
   */
  async takeFinal(): Promise<FinalCheckpoint | undefined> {
    if (!this.holdFinal || this.puts.length === 0 || !this.saver) {
      await this.flush();
      return undefined;
    }
    const { saver, attempt } = this;
    const { writes, puts } = this.take();
    await this.flush();
    const [p, w] = await Promise.all([Promise.all(puts), Promise.all(writes)]);
    return new FinalCheckpoint(saver, p, w.flat(), attempt);
  }

  /** Writes what is held and waits for the writes under way (a read sees them); failures stay for `flush`. */
  async settle(): Promise<void> {
    this.writeHeld();
    await Promise.all(this.writing);
  }

  /** Writes what is held, waits for the writes under way, and throws the first of their failures. */
  async flush(): Promise<void> {
    await this.settle();
    const failure = this.failure;
    this.failure = undefined;
    if (failure) throw failure.error;
  }

  private arm(): void {
    // a final checkpoint waits for the run's end (takeFinal), or for flush
    const puts = this.holdFinal ? 0 : this.puts.length;
    if ((this.held.length > 0 || puts > 0) && this.putting === 0) {
      this.timer ??= setTimeout(() => this.writeHeld(), this.windowMs).unref();
    }
  }

  private take(): { writes: Promise<WriteRow[]>[]; puts: Promise<PutRows>[] } {
    clearTimeout(this.timer);
    this.timer = undefined;
    const taken = { writes: this.held, puts: this.puts };
    this.held = [];
    this.puts = [];
    return taken;
  }

  private writeHeld(): void {
    const { saver, attempt } = this;
    const { writes, puts } = this.take();
    if (!saver || (writes.length === 0 && puts.length === 0)) return;
    // one statement at a time per run, in order: a later one never lands before an earlier one
    const previous = Promise.all(this.writing);
    const write: Promise<unknown> = Promise.all([Promise.all(puts), Promise.all(writes), previous])
      .then(([p, w]) => (p.length > 0 ? saver.writePuts(p, w.flat(), attempt) : saver.writePending(w.flat(), attempt)))
      .catch((error: unknown) => (this.failure ??= { error }))
      .finally(() => this.writing.delete(write));
    this.writing.add(write);
  }
}

/** One row per key, as if written one batch after another: an overwrite wins, else the first stays (a statement touches a row once). */
function columnsOf(rows: WriteRow[]): unknown[][] {
  const byKey = new Map<string, WriteRow>();
  for (const r of rows) {
    const key = r.slice(0, 5).join('\0');
    if (r[8] || !byKey.has(key)) byKey.set(key, r);
  }
  const merged = [...byKey.values()];
  return Array.from({ length: 9 }, (_, i) => merged.map((r) => r[i]));
}

/** The 21 parameters of putCheckpointsSql / checkpointCtes: the blob columns, the checkpoint columns (the last of each id wins), the writes. */
function checkpointParams(puts: PutRows[], writes: WriteRow[]): unknown[] {
  const checkpoints = [...new Map(puts.map((p) => [p.checkpoint.slice(0, 3).join('\0'), p.checkpoint])).values()];
  const blobs = puts.flatMap((p) => p.blobs);
  const column = (rows: unknown[][], i: number) => rows.map((r) => r[i] ?? null);
  return [
    ...Array.from({ length: 6 }, (_, i) => column(blobs, i)),
    ...Array.from({ length: 6 }, (_, i) => column(checkpoints, i)),
    ...columnsOf(writes),
  ];
}

/**
 * A run's last checkpoint (with the pending writes held for it), serialized and not yet written: the run store
 * writes it in the statement that records the run's end (`ctes` and `params`, guarded by the end), so a react
 * turn's checkpoint and result cost one round trip, and either both are written or neither. `write` writes it on
 * its own (fenced by the run's attempt, as any checkpoint), for a store that cannot.
 */
export class FinalCheckpoint {
  constructor(
    private readonly saver: TimedPostgresSaver,
    private readonly puts: PutRows[],
    private readonly writes: WriteRow[],
    private readonly attempt?: RunAttempt,
  ) {}

  /** Its CTEs for a statement's WITH list, parameters from `$first`, written only when the CTE `guard` has a row. */
  ctes(first: number, guard: string): string {
    return checkpointCtes(this.saver.schema, first, guard);
  }

  get params(): unknown[] {
    return checkpointParams(this.puts, this.writes);
  }

  /**
   * The channel values of the run's last root checkpoint — the graph's final state, as its channels keep it (what
   * LangGraph's `values` stream mode reads of them, for channels that keep what they are given); only the keys in
   * `keys`. Undefined when no root checkpoint is held.
   */
  valuesOf(keys: readonly string[]): Record<string, unknown> | undefined {
    const root = this.puts.findLast((p) => p.checkpoint[1] === '');
    if (!root) return undefined;
    return Object.fromEntries(keys.filter((k) => k in root.values).map((k) => [k, root.values[k]]));
  }

  write(): Promise<void> {
    return this.saver.writePuts(this.puts, this.writes, this.attempt);
  }
}

/**
 * LangGraph's Postgres checkpointer, writing in one round trip. The official `put` sends BEGIN, one upsert per
 * changed channel, the checkpoint and COMMIT one after another (a react turn: ~14 round trips); `putWrites`
 * likewise per write. Here each is one statement with the same upserts (rows passed as arrays, `unnest`), which
 * Postgres applies atomically — the same rows and conflict rules, read back unchanged by the official reader.
 * A run's pending writes ride along with its next checkpoint, and an `async` run's checkpoints with each other
 * (PendingWrites). Reads and writes are timed into the request's phases (PHASE_TIMINGS). The rows come from the
 * official serializers (RowDumpingPostgresSaver, where the patch on the library's internals lives); the statements
 * are checkpoint-tables.ts's, where every write of ours to these tables is.
 */
export class TimedPostgresSaver extends RowDumpingPostgresSaver {
  private readonly putSql: string;
  private readonly writesSql: string;
  private readonly fencedPutSql: string;
  private readonly fencedWritesSql: string;

  constructor(
    private readonly db: Pool,
    readonly schema: string,
  ) {
    super(db, undefined, { schema });
    this.putSql = putCheckpointsSql(schema);
    this.writesSql = putWritesSql(schema);
    this.fencedPutSql = putCheckpointsSql(schema, true);
    this.fencedWritesSql = putWritesSql(schema, true);
  }

  /** A thread's checkpoints, blobs and writes deleted in one statement (checkpoint-tables.ts), not the library's three. */
  override async deleteThread(threadId: string): Promise<void> {
    await deleteThread(this.db, threadId);
  }

  override async getTuple(config: RunnableConfig): ReturnType<PostgresSaver['getTuple']> {
    const c = config.configurable;
    const opening = runContextOf(config)?.openingRead;
    if (opening instanceof OpeningRead && !c?.checkpoint_ns && !c?.checkpoint_id && opening.claim()) return opening.tuple;
    const pending: unknown = runContextOf(config)?.pendingWrites;
    if (pending instanceof PendingWrites && pending.holdsCheckpoints) await pending.settle(); // what the run holds is read back
    return phase('checkpoint_read', () => super.getTuple(config));
  }

  /**
   * A run's checkpoint, written only while its attempt holds the run (core/run-fence.ts): a cut-off worker's late
   * step forks nothing. A graph run with an attempt carries it in the statement (the fence is a predicate of the
   * write: a stale attempt's statement writes nothing and throws RunSuperseded), so nothing is asked first;
   * otherwise the write waits for the run context's `fence`. Serialized at once, as the step left it; written at
   * once when nothing is waited for, so puts and writes keep the order they were made in.
   */
  override put(...args: Parameters<Put>): ReturnType<Put> {
    const [config, checkpoint] = args;
    if (config.configurable === undefined) return Promise.reject(new Error('Missing "configurable" field in "config" param'));
    const { thread_id, checkpoint_ns = '' } = config.configurable as Record<string, string | undefined>;
    const saved = { configurable: { thread_id, checkpoint_ns, checkpoint_id: checkpoint.id } };
    const rows = this.putRows(...args);
    const attempt = runAttemptOf(config);
    const write = async (): ReturnType<Put> => {
      const pending: unknown = runContextOf(config)?.pendingWrites;
      if (!(pending instanceof PendingWrites)) return phase('checkpoint_write', () => this.putWith([], rows, attempt));
      if (pending.holdPut(this, rows, attempt)) return saved;
      return phase('checkpoint_write', () => pending.carrying(this, (held) => this.putWith(held, rows, attempt)));
    };
    const held = attempt ? undefined : runHeld(config);
    if (!held) return write();
    rows.catch(() => undefined); // a refusal is what the caller sees
    return held.then(write);
  }

  /** The checkpoint, its new channel values and the pending writes `held` for it, in one statement. */
  private async putWith(held: Promise<WriteRow[]>[], put: Promise<PutRows>, attempt?: RunAttempt): ReturnType<Put> {
    const [rows, writes] = await Promise.all([put, Promise.all(held)]);
    await this.writePuts([rows], writes.flat(), attempt);
    const [thread_id, checkpoint_ns, checkpoint_id] = rows.checkpoint;
    return { configurable: { thread_id, checkpoint_ns, checkpoint_id } };
  }

  private async putRows(...[config, checkpoint, metadata, newVersions]: Parameters<Put>): Promise<PutRows> {
    const { thread_id, checkpoint_ns = '', checkpoint_id } = config.configurable as Record<string, string | undefined>;
    const [blobs, meta] = await Promise.all([
      this.dumpBlobs(thread_id!, checkpoint_ns, checkpoint.channel_values, newVersions),
      this.dumpMetadata(checkpointMetadataOf(config, metadata)),
    ]);
    return {
      values: checkpoint.channel_values,
      blobs,
      checkpoint: [thread_id!, checkpoint_ns, checkpoint.id, checkpoint_id, this.dumpCheckpoint(checkpoint), meta],
    };
  }

  /** Checkpoints (the last of each id wins), their blobs and pending writes, in one statement (fenced by `attempt`). */
  async writePuts(puts: PutRows[], writes: WriteRow[], attempt?: RunAttempt): Promise<void> {
    const params = checkpointParams(puts, writes);
    if (!attempt) {
      await this.db.query(this.putSql, params);
      return;
    }
    const written = await this.db.query(this.fencedPutSql, [...params, attempt.runId, attempt.attempt]);
    if (written.rows.length === 0) throw new RunSuperseded(attempt.runId, attempt.attempt);
  }

  /** Held for the next put when the run has a PendingWrites, else written at once (while the attempt holds its run, as `put`). */
  override putWrites(...[config, writes, taskId]: Parameters<PutWrites>): ReturnType<PutWrites> {
    const c = (config.configurable ?? {}) as Record<string, unknown>;
    const { thread_id, checkpoint_ns, checkpoint_id } = c as Record<string, string>;
    const upsert = writes.every(([channel]) => channel in WRITES_IDX_MAP);
    const rows = this.dumpWrites(thread_id, checkpoint_ns, checkpoint_id, taskId, writes).then((dumped) =>
      dumped.map((w): WriteRow => [...w, upsert]),
    );
    const attempt = runAttemptOf(config);
    const write = () => {
      const pending = runContextOf(config)?.pendingWrites;
      if (pending instanceof PendingWrites && pending.hold(this, rows, attempt)) return rows.then(() => undefined);
      return rows.then((r) => this.writePending(r, attempt));
    };
    // as `put`: serialized now, written while the attempt holds its run (its predicate, or after the fence)
    const held = attempt ? undefined : runHeld(config);
    if (!held) return write();
    rows.catch(() => undefined);
    return held.then(write);
  }

  /** Pending writes on their own (one statement, fenced by `attempt`). */
  async writePending(rows: WriteRow[], attempt?: RunAttempt): Promise<void> {
    if (rows.length === 0) return;
    if (!attempt) {
      await phase('checkpoint_write_pending', () => this.db.query(this.writesSql, columnsOf(rows)));
      return;
    }
    const { rows: result } = await phase('checkpoint_write_pending', () =>
      this.db.query<{ held: boolean }>(this.fencedWritesSql, [...columnsOf(rows), attempt.runId, attempt.attempt]),
    );
    if (!result[0]?.held) throw new RunSuperseded(attempt.runId, attempt.attempt);
  }
}

/** Configurable keys that are the checkpoint's own address (or the run's), never copied into its metadata. */
const NOT_METADATA = new Set(['checkpoint_ns', 'checkpoint_id', 'checkpoint_map', 'run_id', 'thread_id']);

function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/**
 * A checkpoint's metadata as LangGraph Server stores it: the run's scalar configurable values (not LangGraph's
 * `__…` keys nor the checkpoint's address) and its config's metadata (a LangGraph API run's own metadata, its
 * assistant and graph), under what LangGraph writes (step, source, parents). History filters on it.
 */
export function checkpointMetadataOf(config: RunnableConfig, metadata: CheckpointMetadata): CheckpointMetadata {
  const fromConfigurable = Object.entries(config.configurable ?? {}).filter(
    ([k, v]) => !k.startsWith('__') && !NOT_METADATA.has(k) && isScalar(v),
  );
  const fromMetadata = Object.entries(config.metadata ?? {}).filter(([, v]) => isScalar(v));
  if (!fromConfigurable.length && !fromMetadata.length) return metadata;
  return { ...Object.fromEntries(fromConfigurable), ...Object.fromEntries(fromMetadata), ...metadata } as CheckpointMetadata;
}
