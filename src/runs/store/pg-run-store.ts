import { Inject, Injectable, Optional } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, In, Repository } from 'typeorm';

import { RunNotFoundException, SessionNotFoundException } from '../../core/errors';
import { deleteRunCheckpoints, latestCheckpointOf } from '../../database/checkpoint-tables';
import { ORCHESTRATOR_DATA_SOURCE } from '../../database/data-source-name';
import { PendingApproval, RunEntity, RunStatus } from '../../database/entities';
import { GroupCommit } from '../../database/group-commit';
import { pgSafeJson, pgSafeText } from '../../database/pg-safe';
import { poolQuery } from '../../database/pool-query';
import { insertable, rowsOf } from '../../database/query-rows';
import {
  LOCK_SESSION_SQL,
  QUEUED_IF_IDLE_SQL,
  QUEUED_SQL,
  readAlong,
  startedAfterChecksSql,
  startedInSessionSql,
  STOP_UNFINISHED_SQL,
} from './run-accept-sql';
import {
  due,
  finalStatus,
  firstInLine,
  holdsLease,
  leaseEnd,
  leaseFree,
  live,
  releasableBy,
  RELEASE_LEASE,
  startable,
  takeLease,
} from './run-rules';
import {
  type CheckedStart,
  type NewRun,
  type ReconcileCandidate,
  type RunEnd,
  RunStore,
  type SessionChecks,
  type StartedInSession,
  type StoppedRun,
  type ThreadOpening,
} from './run-store';
import { taintOf } from './taint-row';
import { ThreadRetention } from './thread-retention';

/** The run store in Postgres: each transition one statement (raw SQL, the rules from run-rules.ts). */
@Injectable()
export class PgRunStore extends RunStore {
  constructor(
    @InjectRepository(RunEntity, ORCHESTRATOR_DATA_SOURCE) private readonly runs: Repository<RunEntity>,
    @InjectDataSource(ORCHESTRATOR_DATA_SOURCE) private readonly dataSource: DataSource,
    @Optional() @Inject(ThreadRetention) private readonly retention: ThreadRetention | null = null,
  ) {
    super();
  }

  /** A new session's TTL columns: the deployment's default (ThreadRetention; REST v1 sessions name none of their own). */
  private defaultTtl(): [number | null, string | null] {
    const ttl = this.retention?.defaultTtl;
    return [ttl?.minutes ?? null, ttl?.strategy ?? null];
  }

  async create(run: NewRun): Promise<RunEntity> {
    const entity = this.runs.create({
      ...run,
      owner: run.owner ?? null,
      input: pgSafeJson(run.input),
      status: 'queued',
      attempts: 0,
      cancelRequested: false,
      progress: null,
      startedAt: null,
      finishedAt: null,
    });
    await this.runs.insert(insertable(entity));
    return entity;
  }

  /**
   * A queued run with the new session it starts, in one statement; runs accepted while one is being written go
   * in the next statement together (GroupCommit: a burst of submissions shares its round trips and commits).
   */
  createInNewSession(run: NewRun): Promise<RunEntity> {
    return this.newSessionRuns.submit(run);
  }

  private readonly newSessionRuns = new GroupCommit<NewRun, RunEntity>(async (runs) => {
    const column = (f: (r: NewRun) => unknown) => runs.map(f);
    const rows = rowsOf<Record<string, unknown>>(
      await this.dataSource.query(
        `WITH n AS (
           SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::text[], $8::jsonb[])
             AS n(id, session_id, tenant_id, agent, mode, input, owner, session_metadata)
         ), s AS (
           INSERT INTO sessions (id, tenant_id, agent, metadata, ttl_minutes, ttl_strategy)
           SELECT session_id, tenant_id, agent, COALESCE(session_metadata, '{}'::jsonb), $9::float8, $10::text FROM n
         )
         INSERT INTO runs (id, session_id, tenant_id, agent, mode, input, owner, status, attempts)
         SELECT id, session_id, tenant_id, agent, mode, input, owner, 'queued', 0 FROM n
         RETURNING *`,
        [
          column((r) => r.id),
          column((r) => r.sessionId),
          column((r) => r.tenantId),
          column((r) => r.agent),
          column((r) => r.mode),
          column((r) => pgSafeJson(r.input)),
          column((r) => r.owner ?? null),
          column((r) => (r.sessionMetadata ? pgSafeJson(r.sessionMetadata) : null)),
          ...this.defaultTtl(),
        ],
      ),
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return runs.map((r) => this.runs.create(fromRow(byId.get(r.id)!)));
  });

  /**
   * A sync turn's run, accepted and started in one statement (the separate insert, lease and start cost three
   * round trips more): inserted `running` (attempt 1) holding its session's lease when the session is free and
   * none of its runs is unfinished (run-rules.ts: every other run is older) —
   * otherwise `queued`, to wait for the lease as any run does. `newSession` inserts the session too, already
   * leased to the run. `sessionMetadata` is merged into the session's metadata by the same update, when the
   * lease is taken (the caller writes it itself otherwise), and a session without agent adopts the run's.
   */
  async createStarted(run: NewRun, leaseMs: number, newSession = false, sessionMetadata?: Record<string, unknown>): Promise<RunEntity> {
    const sql = newSession
      ? `WITH s AS (
           INSERT INTO sessions (id, tenant_id, agent, metadata, active_run_id, lease_expires_at, ttl_minutes, ttl_strategy)
           VALUES ($2, $3, $4, COALESCE($9::jsonb, '{}'::jsonb), $1, ${leaseEnd('$8')}, $10::float8, $11::text)
         )
         INSERT INTO runs (id, session_id, tenant_id, agent, mode, input, owner, status, attempts, started_at)
         SELECT $1, $2, $3, $4, $5, $6, $7::text, 'running', 1, now()
         RETURNING *`
      : startedInSessionSql(false);
    const rows = await poolQuery<Record<string, unknown>>(this.dataSource, sql, [
      ...startedParams(run, leaseMs, newSession ? run.sessionMetadata : sessionMetadata),
      ...(newSession ? this.defaultTtl() : []),
    ]);
    return this.runs.create(fromRow(rows[0]));
  }

  override async startInSession(run: NewRun, leaseMs: number, sessionMetadata?: Record<string, unknown>): Promise<StartedInSession> {
    const [row] = await poolQuery<Record<string, unknown>>(
      this.dataSource,
      startedInSessionSql(false, true),
      startedParams(run, leaseMs, sessionMetadata),
    );
    return this.startedOf(row);
  }

  override async startChecked(
    run: Omit<NewRun, 'agent'>,
    checks: SessionChecks,
    leaseMs: number,
    sessionMetadata?: Record<string, unknown>,
  ): Promise<CheckedStart> {
    const [row] = await poolQuery<Record<string, unknown>>(this.dataSource, startedAfterChecksSql(), [
      ...startedParams({ ...run, agent: checks.agent ?? null }, leaseMs, sessionMetadata),
      checks.defaultAgent,
      checks.agents,
      checks.refuseScheduled,
    ]);
    if (!row) return { found: false };
    const session = {
      agent: row.s_agent as string | null,
      resolvedAgent: row.s_resolved as string,
      waitingRunId: row.s_waiting_run_id as string | null,
      scheduledRunId: row.s_scheduled_run_id as string | null,
    };
    return row.id == null ? { found: true, session } : { found: true, session, started: this.startedOf(row) };
  }

  /** A started row with what it read of its thread (startedInSessionSql's `reads`): read only when it took the lease. */
  private startedOf(row: Record<string, unknown>): StartedInSession {
    const started = this.runs.create(fromRow(row));
    if (started.status !== 'running') return { run: started };
    return { run: started, opening: { checkpoint: latestCheckpointOf(row), taint: taintOf(row) } };
  }

  /**
   * A run accepted only when no run of its session is unfinished (multitask `reject`), decided where it is written:
   * the session's row is locked first (FOR UPDATE), so concurrent exclusive acceptances on one session take turns,
   * and the insert after the lock — a new statement, hence a new snapshot under READ COMMITTED — sees every run
   * committed meanwhile (a NOT EXISTS in the locking statement itself would not). Three short statements in one
   * transaction that awaits nothing else, so the embedded Postgres (one statement at a time) is never held up.
   */
  async createExclusive(run: NewRun, start?: { leaseMs: number; sessionMetadata?: Record<string, unknown> }): Promise<RunEntity | null> {
    return this.dataSource.transaction(async (tx) => {
      const locked = rowsOf(await tx.query(LOCK_SESSION_SQL, [run.sessionId, run.tenantId]));
      if (!locked.length) throw new SessionNotFoundException(run.sessionId);
      const rows = rowsOf<Record<string, unknown>>(
        start
          ? await tx.query(startedInSessionSql(true), startedParams(run, start.leaseMs, start.sessionMetadata))
          : await tx.query(QUEUED_IF_IDLE_SQL, insertParams(run)),
      );
      return rows.length ? this.runs.create(fromRow(rows[0])) : null;
    });
  }

  /** Multitask `interrupt` / `rollback`: lock the session, stop its unfinished runs, insert the new one — one transaction. */
  async createSuperseding(run: NewRun): Promise<{ run: RunEntity; stopped: StoppedRun[] }> {
    return this.dataSource.transaction(async (tx) => {
      const locked = rowsOf(await tx.query(LOCK_SESSION_SQL, [run.sessionId, run.tenantId]));
      if (!locked.length) throw new SessionNotFoundException(run.sessionId);
      const stopped = rowsOf<StoppedRun>(await tx.query(STOP_UNFINISHED_SQL, [run.sessionId, run.tenantId]));
      const rows = rowsOf<Record<string, unknown>>(await tx.query(QUEUED_SQL, insertParams(run)));
      return { run: this.runs.create(fromRow(rows[0])), stopped: stopped.map((r) => ({ id: r.id, outcome: r.outcome })) };
    });
  }

  /**
   * A queued run, leased and started in one statement (instead of read, lease, start): when its session's lease
   * is free and no earlier-accepted run of the session is unfinished (run-rules.ts), it is not
   * cancelled, not due later (`start_at`) and has attempts left. Null otherwise — the caller then takes the
   * long way, which tells those cases apart. `hasCheckpoint`: whether the session's thread (`tenant:session`, as
   * threadIdOf names it) has a checkpoint yet — a run that started its session has none to read.
   */
  async leaseAndStart(
    id: string,
    leaseMs: number,
    maxAttempts: number,
  ): Promise<{ run: RunEntity; hasCheckpoint: boolean; opening: ThreadOpening } | null> {
    const rows = await poolQuery<Record<string, unknown>>(
      this.dataSource,
      `WITH lease AS (
           UPDATE sessions s SET ${takeLease('me.id', '$2')}
             FROM runs me
            WHERE me.id = $1 AND s.id = me.session_id AND s.tenant_id = me.tenant_id AND ${leaseFree('s')}
              AND ${startable('me')} AND me.attempts < $3 AND ${due('me')}
              AND ${firstInLine({ id: 'me.session_id', tenant: 'me.tenant_id' }, 'me')}
           RETURNING me.id
         ), started AS (
           UPDATE runs SET status = 'running', started_at = COALESCE(started_at, now()), attempts = attempts + 1, updated_at = now()
            WHERE id = (SELECT id FROM lease)
            RETURNING *)
         SELECT started.*, ${readAlong('started')}`,
      [id, String(leaseMs), maxAttempts],
    );
    if (!rows.length) return null;
    const { run, opening } = this.startedOf(rows[0]);
    return { run, hasCheckpoint: opening!.checkpoint !== null, opening: opening! };
  }

  async get(id: string, what: 'job' | 'run' = 'job'): Promise<RunEntity> {
    const run = await this.runs.findOneBy({ id });
    if (!run) throw new RunNotFoundException(id, what);
    return run;
  }

  /** The tenant's run; another tenant's run is not found either. */
  async getForTenant(id: string, tenantId: string, what: 'job' | 'run' = 'job'): Promise<RunEntity> {
    const run = await this.runs.findOneBy({ id, tenantId });
    if (!run) throw new RunNotFoundException(id, what);
    return run;
  }

  async listBySession(sessionId: string, tenantId: string): Promise<RunEntity[]> {
    return this.runs.find({ where: { sessionId, tenantId }, order: { createdAt: 'ASC' } });
  }

  async latestFinished(sessionId: string, tenantId: string): Promise<RunEntity | null> {
    return this.runs.findOne({
      where: { sessionId, tenantId, status: In(['completed', 'failed']) },
      order: { finishedAt: 'DESC' },
    });
  }

  /** queued|running → running (attempt counted). Null when the run already ended or was cancelled. */
  async markRunning(id: string): Promise<RunEntity | null> {
    const rows = rowsOf<Record<string, unknown>>(
      await this.dataSource.query(
        `UPDATE runs SET status = 'running', started_at = COALESCE(started_at, now()), attempts = attempts + 1, updated_at = now()
        WHERE id = $1 AND ${startable('runs')}
        RETURNING *`,
        [id],
      ),
    );
    return rows.length ? this.runs.create(fromRow(rows[0])) : null;
  }

  async setProgress(id: string, progress: Record<string, unknown>): Promise<void> {
    await this.runs.update({ id, status: 'running' }, { progress: pgSafeJson(progress) as never });
  }

  /**
   * Ends a run: its status, result and trace, the turn's messages, the release of the session lease and the run's
   * last checkpoint (`end.checkpoint`, written only by the statement that ends the run) — in one statement, so it
   * is atomic without holding a transaction open (which would stall the embedded Postgres). Returns false (and
   * writes nothing) when the run had already ended.
   */
  async finish(run: RunEntity, end: RunEnd): Promise<boolean> {
    const m = end.messages;
    const checkpoint = end.checkpoint ? `, ${end.checkpoint.ctes(15, 'ended')}` : '';
    const rows = await poolQuery<{ n: number }>(
      this.dataSource,
      `WITH ended AS (
         UPDATE runs SET status = $2, result = $3, error = $4, trace = $5, llm_calls = $6, prompt_tokens = $7,
                completion_tokens = $8, finished_at = now(), updated_at = now()
          WHERE id = $1 AND NOT ${finalStatus('runs')} AND attempts = $14
          RETURNING id, session_id, tenant_id),
       said AS (
         INSERT INTO messages (tenant_id, session_id, run_id, role, content, metadata)
         SELECT e.tenant_id, e.session_id, e.id, v.role, v.content, v.metadata::jsonb
           FROM ended e, (VALUES (1, 'user', $9::text, '{}'), (2, 'assistant', $10::text, $11)) AS v(ord, role, content, metadata)
          WHERE $12::boolean
          ORDER BY v.ord),
       released AS (
         UPDATE sessions s SET ${RELEASE_LEASE}, updated_at = now(),
                summary = COALESCE($13, s.summary)
           FROM ended e WHERE s.id = e.session_id AND s.tenant_id = e.tenant_id AND ${releasableBy('s', 'e')})${checkpoint}
       SELECT count(*)::int AS n FROM ended`,
      [
        run.id,
        end.status,
        json(end.result),
        json(end.error),
        json(end.trace),
        end.usage.calls,
        end.usage.promptTokens,
        end.usage.completionTokens,
        pgSafeText(m?.user ?? ''),
        pgSafeText(m?.assistant ?? ''),
        json(end.error ? { error: end.error } : {}),
        Boolean(m),
        end.summary ? pgSafeText(end.summary) : null,
        run.attempts,
        ...(end.checkpoint?.params ?? []),
      ],
    );
    return rows[0]?.n === 1;
  }

  /** queued → cancelled at once; running → flagged, the executing worker stops it. */
  async requestCancel(id: string): Promise<{ outcome: 'cancelled' | 'flagged' | 'ended'; status: RunStatus }> {
    const queued = await this.runs.update(
      { id, status: 'queued' },
      {
        status: 'cancelled',
        cancelRequested: true,
        finishedAt: new Date(),
        error: { code: 'CANCELLED', message: 'cancelled before it started' },
      },
    );
    if (queued.affected) return { outcome: 'cancelled', status: 'cancelled' };
    const running = await this.runs.update({ id, status: 'running' }, { cancelRequested: true });
    if (running.affected) return { outcome: 'flagged', status: 'running' };
    return { outcome: 'ended', status: (await this.get(id)).status };
  }

  /** A turn stopped at a step boundary (shutdown, database outage): queued again, the attempt not counted. */
  async handBack(sessionId: string, runId: string, attempt: number): Promise<void> {
    await this.dataSource.query(
      `WITH back AS (
         UPDATE runs SET status = 'queued', attempts = GREATEST(attempts - 1, 0), updated_at = now()
          WHERE id = $2 AND status = 'running' AND attempts = $3 RETURNING id)
       UPDATE sessions SET ${RELEASE_LEASE}
        WHERE id = $1 AND active_run_id = $2 AND EXISTS (SELECT 1 FROM runs WHERE id = $2 AND attempts = $3)`,
      [sessionId, runId, attempt],
    );
  }

  /**
   * A tool call waits for an operator (TOOL_APPROVAL): running → interrupted with the pending call, the session
   * lease released — one statement. False when the run was no longer running.
   */
  async pause(runId: string, attempt: number, pending: PendingApproval, progress: Record<string, unknown>): Promise<boolean> {
    const rows = rowsOf<{ id: string }>(
      await this.dataSource.query(
        `WITH paused AS (
           UPDATE runs SET status = 'interrupted', pending_approval = $2, progress = $3, updated_at = now()
            WHERE id = $1 AND status = 'running' AND attempts = $4
            RETURNING id, session_id),
         released AS (
           UPDATE sessions s SET ${RELEASE_LEASE}, updated_at = now()
             FROM paused p WHERE s.id = p.session_id AND s.active_run_id = p.id)
         SELECT id FROM paused`,
        [runId, JSON.stringify(pending), JSON.stringify(progress), attempt],
      ),
    );
    return rows.length === 1;
  }

  /** The operator's decision is being acted on: drop it, so a retried attempt asks again instead of reusing it. */
  async consumeDecision(runId: string): Promise<void> {
    await this.dataSource.query(`UPDATE runs SET pending_approval = NULL WHERE id = $1 AND status = 'running'`, [runId]);
  }

  /** interrupted → queued with the decision, exactly once; false when the run is not waiting for one (already decided, ended …). */
  async decide(runId: string, approved: boolean): Promise<boolean> {
    const decision = JSON.stringify({ approved, at: new Date().toISOString() });
    const rows = rowsOf<{ id: string }>(
      await this.dataSource.query(
        `UPDATE runs SET status = 'queued', attempts = GREATEST(attempts - 1, 0), updated_at = now(),
                pending_approval = jsonb_set(pending_approval, '{decision}', $2::jsonb)
          WHERE id = $1 AND status = 'interrupted' AND pending_approval IS NOT NULL
          RETURNING id`,
        [runId, decision],
      ),
    );
    return rows.length === 1;
  }

  /** Undo an acceptance that lost an idempotency race (never enqueued), and the new session it started. */
  async discard(runId: string, session: { id: string; tenantId: string } | null): Promise<void> {
    await this.dataSource.query(`DELETE FROM runs WHERE id = $1`, [runId]);
    if (session)
      await this.dataSource.query(
        `DELETE FROM sessions s WHERE s.id = $1 AND s.tenant_id = $2
            AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.session_id = s.id AND r.tenant_id = s.tenant_id)`,
        [session.id, session.tenantId],
      );
  }

  /** Deletes an ended run: its row, its messages and its checkpoints (RunStore.deleteRun), in one transaction. */
  async deleteRun(tenantId: string, checkpointThread: string, runId: string): Promise<boolean> {
    return this.dataSource.transaction(async (tx) => {
      await deleteRunCheckpoints(tx, checkpointThread, runId);
      await tx.query(`DELETE FROM messages WHERE tenant_id = $1 AND run_id = $2`, [tenantId, runId]);
      const rows = rowsOf(await tx.query(`DELETE FROM runs WHERE tenant_id = $1 AND id = $2 RETURNING id`, [tenantId, runId]));
      return rows.length > 0;
    });
  }

  /**
   * Accepted runs nobody is executing: queued for more than `graceMs`, or running without a live session lease
   * (its worker died or lost its job). A sync run is left to its request until `syncGraceMs` (its client may
   * still be waiting for the lease). The reconciler checks each against the queue.
   */
  async unfinished(graceMs: number, syncGraceMs: number, limit = 500): Promise<ReconcileCandidate[]> {
    return rowsOf<ReconcileCandidate>(
      await this.dataSource.query(
        `SELECT r.id, r.status, r.attempts FROM runs r
          WHERE ${live('r')} AND r.created_at < now() - ($1 || ' milliseconds')::interval
            AND (r.mode = 'async' OR r.created_at < now() - ($3 || ' milliseconds')::interval)
            AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = r.session_id AND s.tenant_id = r.tenant_id AND ${holdsLease('s', 'r')})
          ORDER BY r.created_at ASC LIMIT $2`,
        [String(graceMs), limit, String(syncGraceMs)],
      ),
    );
  }

  /** The run of the session that takes the lease next (the earliest accepted unfinished one). */
  async nextOfSession(sessionId: string, tenantId: string): Promise<string | null> {
    const rows = rowsOf<{ id: string }>(
      await this.dataSource.query(
        `SELECT id FROM runs WHERE session_id = $1 AND tenant_id = $2 AND status = 'queued' AND NOT cancel_requested
          ORDER BY created_at, id LIMIT 1`,
        [sessionId, tenantId],
      ),
    );
    return rows[0]?.id ?? null;
  }

  /** Runs that should be executing but nobody holds: for re-queueing after a crash. */
  async orphans(olderThanMs: number): Promise<RunEntity[]> {
    return this.runs
      .createQueryBuilder('r')
      .where(live('r'))
      .andWhere(`r.updated_at < now() - (:ms || ' milliseconds')::interval`, { ms: String(olderThanMs) })
      .andWhere(`NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = r.session_id AND s.tenant_id = r.tenant_id AND ${holdsLease('s', 'r')})`)
      .orderBy('r.created_at', 'ASC')
      .limit(500)
      .getMany();
  }
}

/** $1–$7 of the acceptance statements (run-accept-sql.ts); the agent null only where the statement resolves it (startedAfterChecksSql). */
function insertParams(run: Omit<NewRun, 'agent'> & { agent: string | null }): unknown[] {
  return [run.id, run.sessionId, run.tenantId, run.agent, run.mode, pgSafeJson(run.input), run.owner ?? null];
}

/** $1–$9 of the started acceptance: the run's, the lease's length, the metadata merged into the session with it. */
function startedParams(
  run: Parameters<typeof insertParams>[0],
  leaseMs: number,
  sessionMetadata: Record<string, unknown> | undefined,
): unknown[] {
  return [...insertParams(run), String(leaseMs), jsonOrNull(sessionMetadata)];
}

/** jsonb parameters: what a model or tool produced may hold NUL or lone surrogates, which Postgres rejects. */
const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(pgSafeJson(v)));

/** A raw `runs` row (snake_case) as the entity's properties. */
function fromRow(r: Record<string, unknown>): Partial<RunEntity> {
  return {
    id: r.id as string,
    sessionId: r.session_id as string,
    tenantId: r.tenant_id as string,
    owner: (r.owner ?? null) as string | null,
    agent: r.agent as string,
    mode: r.mode as RunEntity['mode'],
    status: r.status as RunEntity['status'],
    input: r.input as RunEntity['input'],
    result: r.result as RunEntity['result'],
    error: r.error as RunEntity['error'],
    trace: r.trace as RunEntity['trace'],
    progress: r.progress as RunEntity['progress'],
    pendingApproval: (r.pending_approval ?? null) as RunEntity['pendingApproval'],
    llmCalls: r.llm_calls as number,
    promptTokens: r.prompt_tokens as number,
    completionTokens: r.completion_tokens as number,
    attempts: r.attempts as number,
    cancelRequested: r.cancel_requested as boolean,
    createdAt: r.created_at as Date,
    startedAt: r.started_at as Date | null,
    finishedAt: r.finished_at as Date | null,
    updatedAt: r.updated_at as Date,
  };
}

function jsonOrNull(value: Record<string, unknown> | undefined): string | null {
  return value ? JSON.stringify(pgSafeJson(value)) : null;
}
