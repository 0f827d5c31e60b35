import type { TupleRow } from '../platform/row-dumping-postgres-saver';
import { CHECKPOINT_SCHEMA } from './checkpoint-schema';

/**
 * Every statement of ours that writes LangGraph's checkpoint tables (`checkpoints`, `checkpoint_blobs`,
 * `checkpoint_writes`), written once. Two callers, nothing else: the checkpoint writer (checkpoint-writer.ts: a
 * run's checkpoints and pending writes, each in one statement) and the run store (runs/store: a thread's copy, a
 * run's rollback, a session's deletion or pruning (retention) and the operator's reset, each inside the transaction that writes the
 * session's or run's rows with it; a run's last checkpoint in the statement that records its end, `checkpointCtes`).
 * The official saver's `setup()` creates the tables; its migrations are the library's. Each function is one
 * statement (data-modifying CTEs: all or nothing, one snapshot).
 */

/** Anything that runs a statement: a DataSource, a transaction's EntityManager, a pg Pool or client. */
export interface SqlRunner {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

const table = (name: string, schema = CHECKPOINT_SCHEMA) => `"${schema}".${name}`;

/** The checkpoint thread of a session, in SQL (as auth/tenant.ts `threadIdOf` names it: `tenant:session`). */
export function checkpointThreadSql(tenant: string, session: string): string {
  return `(${tenant} || ':' || ${session})`;
}

/** Whether the thread `thread` (a SQL expression) has a checkpoint (a read, for the statements that start a run). */
export function hasCheckpointSql(thread: string): string {
  return `EXISTS (SELECT 1 FROM ${table('checkpoints')} c WHERE c.thread_id = ${thread})`;
}

/** A thread's latest checkpoint as the official saver's `getTuple` reads it: the columns of its SELECT_SQL. */
export type LatestCheckpointRow = TupleRow;

/**
 * The latest checkpoint of thread `thread` (a SQL expression) in the root namespace, read as the official
 * saver's `getTuple` reads it (its SELECT_SQL, the same text: the canary is test/integration/thread-opening.int-spec.ts), for a
 * statement that reads it along with what it writes: `LEFT JOIN LATERAL (…) alias`, then latestCheckpointColumns.
 */
export function latestCheckpointSql(thread: string, schema = CHECKPOINT_SCHEMA): string {
  return `select
    thread_id,
    checkpoint,
    checkpoint_ns,
    checkpoint_id,
    parent_checkpoint_id,
    metadata,
    (
      select array_agg(array[bl.channel::bytea, bl.type::bytea, bl.blob])
      from jsonb_each_text(checkpoint -> 'channel_versions')
      inner join ${table('checkpoint_blobs', schema)} bl
        on bl.thread_id = cp.thread_id
        and bl.checkpoint_ns = cp.checkpoint_ns
        and bl.channel = jsonb_each_text.key
        and bl.version = jsonb_each_text.value
    ) as channel_values,
    (
      select
      array_agg(array[cw.task_id::text::bytea, cw.channel::bytea, cw.type::bytea, cw.blob] order by cw.task_id, cw.idx)
      from ${table('checkpoint_writes', schema)} cw
      where cw.thread_id = cp.thread_id
        and cw.checkpoint_ns = cp.checkpoint_ns
        and cw.checkpoint_id = cp.checkpoint_id
    ) as pending_writes
  from ${table('checkpoints', schema)} cp WHERE thread_id = ${thread} AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`;
}

const LATEST_COLUMNS = ['checkpoint', 'checkpoint_id', 'parent_checkpoint_id', 'metadata', 'channel_values', 'pending_writes'] as const;

/** The select list of a joined latestCheckpointSql (`alias`), its columns prefixed `cp_` beside the statement's own. */
export function latestCheckpointColumns(alias: string): string {
  return LATEST_COLUMNS.map((c) => `${alias}.${c} AS cp_${c}`).join(', ');
}

/** The latest checkpoint in a row selected with latestCheckpointColumns; null when the thread has none. */
export function latestCheckpointOf(row: Record<string, unknown>): LatestCheckpointRow | null {
  if (row.cp_checkpoint_id == null) return null;
  const r = row as { [K in keyof LatestCheckpointRow as `cp_${K}`]: LatestCheckpointRow[K] };
  return {
    checkpoint: r.cp_checkpoint,
    checkpoint_id: r.cp_checkpoint_id,
    parent_checkpoint_id: r.cp_parent_checkpoint_id,
    metadata: r.cp_metadata,
    channel_values: r.cp_channel_values,
    pending_writes: r.cp_pending_writes,
  };
}

/** Copies a thread's checkpoints (every namespace), blobs and pending writes to another thread id. */
export async function copyThread(q: SqlRunner, fromThread: string, toThread: string): Promise<void> {
  await q.query(
    `WITH c AS (
       INSERT INTO ${table('checkpoints')} (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata)
       SELECT $2, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM ${table('checkpoints')} WHERE thread_id = $1
     ), b AS (
       INSERT INTO ${table('checkpoint_blobs')} (thread_id, checkpoint_ns, channel, version, type, blob)
       SELECT $2, checkpoint_ns, channel, version, type, blob FROM ${table('checkpoint_blobs')} WHERE thread_id = $1
     )
     INSERT INTO ${table('checkpoint_writes')} (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
     SELECT $2, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob FROM ${table('checkpoint_writes')} WHERE thread_id = $1`,
    [fromThread, toThread],
  );
}

/** Deletes a thread's checkpoints, blobs and pending writes (what the official saver's `deleteThread` deletes). */
export async function deleteThread(q: SqlRunner, thread: string): Promise<void> {
  await q.query(
    `WITH b AS (DELETE FROM ${table('checkpoint_blobs')} WHERE thread_id = $1),
          w AS (DELETE FROM ${table('checkpoint_writes')} WHERE thread_id = $1)
     DELETE FROM ${table('checkpoints')} WHERE thread_id = $1`,
    [thread],
  );
}

/** Deletes the checkpoints, blobs and pending writes of several threads at once (the retention sweeper's batch). */
export async function deleteThreads(q: SqlRunner, threads: string[]): Promise<void> {
  if (!threads.length) return;
  await q.query(
    `WITH b AS (DELETE FROM ${table('checkpoint_blobs')} WHERE thread_id = ANY($1::text[])),
          w AS (DELETE FROM ${table('checkpoint_writes')} WHERE thread_id = ANY($1::text[]))
     DELETE FROM ${table('checkpoints')} WHERE thread_id = ANY($1::text[])`,
    [threads],
  );
}

/**
 * Keeps only the latest checkpoint of each namespace of the threads (retention's `keep_latest`: the state stays,
 * the history goes): older checkpoints, their pending writes, and the blobs no kept checkpoint names in its
 * `channel_versions`. Checkpoint ids are time-ordered (uuid6), so the latest is the greatest, as the saver reads it.
 */
export async function keepLatestCheckpoints(q: SqlRunner, threads: string[]): Promise<void> {
  if (!threads.length) return;
  await q.query(
    `WITH kept AS (
       SELECT DISTINCT ON (thread_id, checkpoint_ns) thread_id, checkpoint_ns, checkpoint_id, checkpoint
         FROM ${table('checkpoints')} WHERE thread_id = ANY($1::text[])
        ORDER BY thread_id, checkpoint_ns, checkpoint_id DESC
     ), w AS (
       DELETE FROM ${table('checkpoint_writes')} cw WHERE cw.thread_id = ANY($1::text[])
          AND NOT EXISTS (SELECT 1 FROM kept k WHERE k.thread_id = cw.thread_id AND k.checkpoint_ns = cw.checkpoint_ns AND k.checkpoint_id = cw.checkpoint_id)
     ), b AS (
       DELETE FROM ${table('checkpoint_blobs')} cb WHERE cb.thread_id = ANY($1::text[])
          AND NOT EXISTS (SELECT 1 FROM kept k WHERE k.thread_id = cb.thread_id AND k.checkpoint_ns = cb.checkpoint_ns
                             AND k.checkpoint -> 'channel_versions' ->> cb.channel = cb.version)
     )
     DELETE FROM ${table('checkpoints')} c WHERE c.thread_id = ANY($1::text[])
        AND NOT EXISTS (SELECT 1 FROM kept k WHERE k.thread_id = c.thread_id AND k.checkpoint_ns = c.checkpoint_ns AND k.checkpoint_id = c.checkpoint_id)`,
    [threads],
  );
}

/** Deletes the checkpoints of every session of the tenant (the operator's reset). */
export async function deleteThreadsOfTenant(q: SqlRunner, tenantId: string): Promise<void> {
  const threads = `(SELECT ${checkpointThreadSql('s.tenant_id', 's.id')} FROM sessions s WHERE s.tenant_id = $1)`;
  await q.query(
    `WITH b AS (DELETE FROM ${table('checkpoint_blobs')} WHERE thread_id IN ${threads}),
          w AS (DELETE FROM ${table('checkpoint_writes')} WHERE thread_id IN ${threads})
     DELETE FROM ${table('checkpoints')} WHERE thread_id IN ${threads}`,
    [tenantId],
  );
}

/**
 * Deletes the checkpoints a run wrote on its thread (their metadata carries its run id) and their pending writes;
 * blobs stay (other checkpoints may share them, as LangGraph Server leaves them).
 */
export async function deleteRunCheckpoints(q: SqlRunner, thread: string, runId: string): Promise<void> {
  await q.query(
    `WITH ids AS (SELECT checkpoint_id FROM ${table('checkpoints')} WHERE thread_id = $1 AND metadata->>'run_id' = $2),
          w AS (DELETE FROM ${table('checkpoint_writes')} WHERE thread_id = $1 AND checkpoint_id IN (SELECT checkpoint_id FROM ids))
     DELETE FROM ${table('checkpoints')} WHERE thread_id = $1 AND checkpoint_id IN (SELECT checkpoint_id FROM ids)`,
    [thread, runId],
  );
}

const WRITE_COLUMNS = 'thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob';

/**
 * The fence of a run's checkpoint statement ($`first` the run id, the next its attempt): one row while the run's
 * row is still that attempt and running, else none, and then the statement writes nothing. The row is locked FOR
 * SHARE: a takeover (which raises `attempts`) waits for the statement's end and then reads what it wrote, and a
 * statement that waited for a takeover finds the new attempt (Postgres re-reads a locked row that changed).
 */
function fenceCte(first: number): string {
  return `fence AS (SELECT 1 FROM runs WHERE id = $${first}::uuid AND attempts = $${first + 1}::int AND status = 'running' FOR SHARE)`;
}

/** Where a guarded statement's rows come from: only while the CTE `guard` has a row (the fence, or the run's end). */
const guardedBy = (guard?: string) => (guard ? `WHERE EXISTS (SELECT 1 FROM ${guard})` : '');

/**
 * Pending writes from nine array parameters starting at `$first` (the eight columns and whether the row overwrites):
 * as the official saver, special channels (errors, interrupts…) overwrite, the others keep the first write.
 */
function writesCte(schema: string, first: number, guard?: string): string {
  const p = Array.from({ length: 9 }, (_, i) => `$${first + i}`);
  const key = 'ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)';
  return `w AS (
        SELECT * FROM unnest(${p[0]}::text[], ${p[1]}::text[], ${p[2]}::text[], ${p[3]}::text[], ${p[4]}::int[], ${p[5]}::text[], ${p[6]}::text[], ${p[7]}::bytea[], ${p[8]}::bool[])
          AS w(${WRITE_COLUMNS}, upsert) ${guardedBy(guard)}
      ), upserted AS (
        INSERT INTO ${table('checkpoint_writes', schema)} (${WRITE_COLUMNS}) SELECT ${WRITE_COLUMNS} FROM w WHERE upsert
        ${key} DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob
      ), inserted AS (
        INSERT INTO ${table('checkpoint_writes', schema)} (${WRITE_COLUMNS}) SELECT ${WRITE_COLUMNS} FROM w WHERE NOT upsert
        ${key} DO NOTHING
      )`;
}

/**
 * Checkpoints with their blobs and pending writes, in one statement: $1–$6 the blob columns, $7–$12 the
 * checkpoint columns, $13–$21 the writes (the same rows and conflict rules as the official saver's `put`).
 * `fence`: $22 the run id and $23 its attempt (fenceCte); the checkpoints written are returned (none: refused).
 */
export function putCheckpointsSql(schema: string, fence = false): string {
  const guard = fence ? 'fence' : undefined;
  return `WITH ${fence ? `${fenceCte(22)}, ` : ''}${writesCte(schema, 13, guard)}, ${blobsCte(schema, 1, guard)}
      ${insertCheckpoints(schema, 7, guard)}
      ${fence ? 'RETURNING 1' : ''}`;
}

/**
 * The same rows as CTEs to add to another statement's WITH list, parameters from `$first` (21 of them, in
 * putCheckpointsSql's order), written only when the CTE `guard` has a row: the run store's end of a run writes its
 * final checkpoint in the statement that records the end, guarded by the run's row being ended by it.
 */
export function checkpointCtes(schema: string, first: number, guard: string): string {
  return `${writesCte(schema, first + 12, guard)}, ${blobsCte(schema, first, guard)},
      checkpointed AS (${insertCheckpoints(schema, first + 6, guard)})`;
}

function blobsCte(schema: string, first: number, guard?: string): string {
  const p = Array.from({ length: 6 }, (_, i) => `$${first + i}`);
  return `blobs AS (
        INSERT INTO ${table('checkpoint_blobs', schema)} (thread_id, checkpoint_ns, channel, version, type, blob)
        SELECT * FROM unnest(${p[0]}::text[], ${p[1]}::text[], ${p[2]}::text[], ${p[3]}::text[], ${p[4]}::text[], ${p[5]}::bytea[]) ${guardedBy(guard)}
        ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING
      )`;
}

function insertCheckpoints(schema: string, first: number, guard?: string): string {
  const p = Array.from({ length: 6 }, (_, i) => `$${first + i}`);
  return `INSERT INTO ${table('checkpoints', schema)} (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
      SELECT * FROM unnest(${p[0]}::text[], ${p[1]}::text[], ${p[2]}::text[], ${p[3]}::text[], ${p[4]}::jsonb[], ${p[5]}::jsonb[]) ${guardedBy(guard)}
      ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata`;
}

/**
 * Pending writes on their own, in one statement ($1–$9; data-modifying CTEs run whether or not the query reads them).
 * `fence`: $10 the run id and $11 its attempt (fenceCte); one row `held` (false: refused).
 */
export function putWritesSql(schema: string, fence = false): string {
  return fence
    ? `WITH ${fenceCte(10)}, ${writesCte(schema, 1, 'fence')} SELECT EXISTS (SELECT 1 FROM fence) AS held`
    : `WITH ${writesCte(schema, 1)} SELECT 1`;
}
