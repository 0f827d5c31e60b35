import { Inject, Injectable, Optional } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';

import { type AuthFilters, metadataContainment } from '../../auth/auth-filters';
import { threadIdOf } from '../../auth/tenant';
import { SessionBusyException, SessionNotFoundException } from '../../core/errors';
import {
  copyThread,
  deleteThread,
  deleteThreads,
  deleteThreadsOfTenant,
  keepLatestCheckpoints,
  type SqlRunner,
} from '../../database/checkpoint-tables';
import { ORCHESTRATOR_DATA_SOURCE } from '../../database/data-source-name';
import { SessionEntity } from '../../database/entities';
import { poolQuery } from '../../database/pool-query';
import { rowsOf } from '../../database/query-rows';
import type { ThreadTaint } from '../../tools/thread-taint';
import {
  awaitingApproval,
  due,
  expiredForDelete,
  extendLease,
  firstInLine,
  leaseFree,
  leaseHeld,
  leaseRemainingMs,
  notExpired,
  RELEASE_LEASE,
  startable,
  sweepable,
  takeLease,
  unfinished,
} from './run-rules';
import { SessionStore, type SweepResult, type TenantReset, type TurnSession } from './session-store';
import { taintOfRow, type TaintRow } from './taint-row';
import { ThreadRetention, type ThreadTtl, type TtlStrategy } from './thread-retention';

/** The taint of session $2 copied to session $3 (tenant $1). */
const COPY_TAINT_SQL = `INSERT INTO thread_taint (tenant_id, session_id, sources, digest, opaque, run_id, tainted_at)
  SELECT tenant_id, $3, sources, digest, opaque, run_id, tainted_at FROM thread_taint WHERE tenant_id = $1 AND session_id = $2
  ON CONFLICT (tenant_id, session_id) DO NOTHING`;

/** Session rows and the turn lease in Postgres. */
@Injectable()
export class PgSessionStore extends SessionStore {
  constructor(
    @InjectRepository(SessionEntity, ORCHESTRATOR_DATA_SOURCE) private readonly sessions: Repository<SessionEntity>,
    @InjectDataSource(ORCHESTRATOR_DATA_SOURCE) private readonly db: DataSource,
    @Optional() @Inject(ThreadRetention) private readonly retention: ThreadRetention | null = null,
  ) {
    super();
  }

  /** The TTL columns' values for a new session: its own TTL, else the deployment's default (none: nulls). */
  private ttlParams(own?: ThreadTtl | null): [number | null, TtlStrategy | null] {
    const ttl = own ?? this.retention?.defaultTtl ?? null;
    return [ttl?.minutes ?? null, ttl?.strategy ?? null];
  }

  /**
   * The tenant's session with a client-chosen id, started with `agent` when the tenant has never used the
   * id (two concurrent first turns with the same id end up in the same session).
   */
  async open(
    tenantId: string,
    id: string,
    agent: string,
    metadata?: Record<string, unknown>,
  ): Promise<{ session: SessionEntity; created: boolean }> {
    const created = await this.insert(tenantId, id, metadata ?? {}, agent);
    return { session: await this.get(id, tenantId), created };
  }

  /** A new session (a LangGraph thread), without agent unless given; false when the tenant already has one with this id. */
  async insert(
    tenantId: string,
    id: string,
    metadata: Record<string, unknown>,
    agent: string | null = null,
    ttl?: ThreadTtl | null,
  ): Promise<boolean> {
    const insert = async () =>
      rowsOf(
        await this.db.query(
          `INSERT INTO sessions (tenant_id, id, agent, metadata, ttl_minutes, ttl_strategy) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (tenant_id, id) DO NOTHING RETURNING id`,
          [tenantId, id, agent, JSON.stringify(metadata), ...this.ttlParams(ttl)],
        ),
      ).length > 0;
    // the id of an expired session (gone for readers, not swept yet) is free: that session is deleted now
    return (await insert()) || ((await this.removeIfExpired(tenantId, id)) && (await insert()));
  }

  /** Deletes the session now when it has expired (`delete` strategy) and may be swept; whether it did. */
  private async removeIfExpired(tenantId: string, id: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const rows = rowsOf<ExpiredRow>(
        await tx.query(
          `SELECT s.tenant_id, s.id, s.ttl_strategy FROM sessions s
            WHERE s.tenant_id = $1 AND s.id = $2 AND ${expiredForDelete('s')} AND ${sweepable('s')} FOR UPDATE OF s`,
          [tenantId, id],
        ),
      );
      await removeSessions(tx, rows);
      return rows.length > 0;
    });
  }

  /** The tenant's session; another tenant's (or no) session is SESSION_NOT_FOUND. */
  async get(id: string, tenantId: string): Promise<SessionEntity> {
    const s = await this.find(id, tenantId);
    if (!s) throw new SessionNotFoundException(id);
    return s;
  }

  /** The tenant's session, null when there is none or it has expired (retention: gone for readers at once). */
  async find(id: string, tenantId: string): Promise<SessionEntity | null> {
    return this.sessions
      .createQueryBuilder('s')
      .where('s.id = :id AND s.tenant_id = :tenantId', { id, tenantId })
      .andWhere(notExpired('s'))
      .getOne();
  }

  /** The tenant's visible sessions (SessionStore.list): expired ones are left out (retention). */
  async list(tenantId: string, limit: number, agent?: string, auth?: AuthFilters): Promise<SessionEntity[]> {
    const q = this.sessions.createQueryBuilder('s').where('s.tenant_id = :tenantId', { tenantId }).andWhere(notExpired('s'));
    if (agent) q.andWhere('s.agent = :agent', { agent });
    if (auth) q.andWhere('s.metadata @> CAST(:auth AS jsonb)', { auth: JSON.stringify(metadataContainment(auth)) });
    return q.orderBy('s.updatedAt', 'DESC').limit(limit).getMany();
  }

  /**
   * The session a turn arrives for, with the run it waits on, if any (a run paused for a tool approval:
   * `interrupted` and not finished; a new turn must not overtake it) — one statement for both.
   */
  async findForTurn(id: string, tenantId: string): Promise<TurnSession | null> {
    const { entities, raw } = await this.sessions
      .createQueryBuilder('s')
      .addSelect(
        `(SELECT r.id FROM runs r WHERE r.session_id = s.id AND r.tenant_id = s.tenant_id AND ${awaitingApproval('r')} LIMIT 1)`,
        'waiting_run_id',
      )
      .addSelect(
        `(SELECT r.id FROM runs r WHERE r.session_id = s.id AND r.tenant_id = s.tenant_id AND ${startable('r')} AND NOT ${due('r')} LIMIT 1)`,
        'scheduled_run_id',
      )
      .where('s.id = :id AND s.tenant_id = :tenantId', { id, tenantId })
      .andWhere(notExpired('s'))
      .getRawAndEntities<{ waiting_run_id: string | null; scheduled_run_id: string | null }>();
    if (!entities[0]) return null;
    return { session: entities[0], waitingRunId: raw[0]?.waiting_run_id ?? null, scheduledRunId: raw[0]?.scheduled_run_id ?? null };
  }

  /** Merges `metadata` into the session's; false when there is no such session. */
  async patchMetadata(tenantId: string, id: string, metadata: Record<string, unknown>): Promise<boolean> {
    const rows = rowsOf(
      await this.db.query(
        `UPDATE sessions SET metadata = COALESCE(metadata, '{}'::jsonb) || $3::jsonb, updated_at = now() WHERE tenant_id = $1 AND id = $2 RETURNING id`,
        [tenantId, id, JSON.stringify(metadata)],
      ),
    );
    return rows.length > 0;
  }

  /**
   * A LangGraph API run records its assistant and graph in the thread's metadata, as LangGraph Server does
   * (`metadata.assistant_id`, `metadata.graph_id`), and the thread adopts the graph when it has none.
   */
  async recordRunAssistant(tenantId: string, id: string, assistantId: string, graphId: string): Promise<void> {
    await this.db.query(
      `UPDATE sessions SET metadata = COALESCE(metadata, '{}'::jsonb) || jsonb_build_object('assistant_id', $3::text, 'graph_id', $4::text),
              agent = COALESCE(agent, $4), updated_at = now()
        WHERE tenant_id = $1 AND id = $2`,
      [tenantId, id, assistantId, graphId],
    );
  }

  /** Binds a session without agent to `agent` (a state update through that graph); returns the session's agent. */
  async adoptAgent(tenantId: string, id: string, agent: string): Promise<string | null> {
    const rows = rowsOf<{ agent: string | null }>(
      await this.db.query(
        `UPDATE sessions SET agent = COALESCE(agent, $3), updated_at = now() WHERE tenant_id = $1 AND id = $2 RETURNING agent`,
        [tenantId, id, agent],
      ),
    );
    return rows[0]?.agent ?? null;
  }

  async touch(tenantId: string, id: string): Promise<void> {
    await this.db.query(`UPDATE sessions SET updated_at = now() WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
  }

  /**
   * Forgets the session and its checkpoints (its runs and messages go with it: foreign keys), refused while its
   * lease is held: decided under the session's row lock, which a run taking the lease waits for (and then finds
   * no session). Three short statements in one transaction that awaits nothing else.
   */
  async delete(id: string, tenantId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const rows = rowsOf<{ busy: boolean }>(
        await tx.query(`SELECT ${leaseHeld('s')} AS busy FROM sessions s WHERE s.id = $1 AND s.tenant_id = $2 FOR UPDATE`, [id, tenantId]),
      );
      if (!rows[0]) throw new SessionNotFoundException(id);
      if (rows[0].busy) throw new SessionBusyException(id);
      await deleteThread(tx, threadIdOf(tenantId, id));
      await tx.query(`DELETE FROM sessions WHERE id = $1 AND tenant_id = $2`, [id, tenantId]);
    });
  }

  /** The tenant's reset (SessionStore.resetTenant): checkpoints first, while the sessions that name them are there. */
  async resetTenant(tenantId: string, what: TenantReset): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (what.checkpoints || what.sessions) await deleteThreadsOfTenant(tx, tenantId);
      if (what.runs) {
        await tx.query(`DELETE FROM messages WHERE tenant_id = $1 AND run_id IS NOT NULL`, [tenantId]);
        await tx.query(`DELETE FROM runs WHERE tenant_id = $1`, [tenantId]);
      }
      if (what.sessions) await tx.query(`DELETE FROM sessions WHERE tenant_id = $1`, [tenantId]);
    });
  }

  /** A copy of a thread (SessionStore.copy): REPEATABLE READ, so the source's rows are read in one snapshot. */
  async copy(tenantId: string, fromId: string, toId: string, metadata: Record<string, unknown>, agent: string | null): Promise<boolean> {
    return this.db.transaction('REPEATABLE READ', async (tx) => {
      // the copy keeps the source's TTL (a copy of a thread that expires expires too)
      const created = rowsOf(
        await tx.query(
          `INSERT INTO sessions (tenant_id, id, agent, metadata, ttl_minutes, ttl_strategy)
           SELECT $1, $2, $3, $4, src.ttl_minutes, src.ttl_strategy
             FROM (SELECT 1) one LEFT JOIN sessions src ON src.tenant_id = $1 AND src.id = $5
           ON CONFLICT (tenant_id, id) DO NOTHING RETURNING id`,
          [tenantId, toId, agent, JSON.stringify(metadata), fromId],
        ),
      );
      if (!created.length) return false;
      await tx.query(COPY_TAINT_SQL, [tenantId, fromId, toId]);
      await copyThread(tx, threadIdOf(tenantId, fromId), threadIdOf(tenantId, toId));
      return true;
    });
  }

  /** Sets the session's TTL (SessionStore.setTtl): a change of its TTL is activity, so its expiry restarts now. */
  async setTtl(tenantId: string, id: string, ttl: ThreadTtl): Promise<boolean> {
    const rows = rowsOf(
      await this.db.query(
        `UPDATE sessions s SET ttl_minutes = $3, ttl_strategy = $4, updated_at = now()
          WHERE s.tenant_id = $1 AND s.id = $2 AND ${notExpired('s')} RETURNING s.id`,
        [tenantId, id, ttl.minutes, ttl.strategy],
      ),
    );
    return rows.length > 0;
  }

  /**
   * One batch of the retention sweep (SessionStore.sweepExpired), in one transaction that first takes the cluster's
   * sweep lock (`pg_try_advisory_xact_lock`: a transaction-scoped lock, so it also holds through a transaction-pooling
   * PgBouncer); null when another process holds it. The expired sessions are picked and row-locked in one statement
   * (FOR UPDATE SKIP LOCKED) that leaves out any whose lease is held or that has an unfinished run (run-rules
   * `sweepable`), so no run starts on them until they are gone.
   */
  async sweepExpired(limit: number): Promise<SweepResult | null> {
    return this.db.transaction(async (tx) => {
      const lock = rowsOf<{ locked: boolean }>(await tx.query(`SELECT pg_try_advisory_xact_lock(${SWEEP_LOCK}) AS locked`));
      if (!lock[0]?.locked) return null;
      const rows = rowsOf<ExpiredRow>(
        await tx.query(
          `SELECT s.tenant_id, s.id, s.ttl_strategy FROM sessions s WHERE ${sweepable('s')}
            ORDER BY s.expires_at LIMIT $1 FOR UPDATE OF s SKIP LOCKED`,
          [limit],
        ),
      );
      const gone = rows.filter((r) => r.ttl_strategy !== 'keep_latest');
      const kept = rows.filter((r) => r.ttl_strategy === 'keep_latest');
      await removeSessions(tx, gone);
      await keepLatest(tx, kept, true);
      return { deleted: gone.map(keyOf), pruned: kept.map(keyOf) };
    });
  }

  /**
   * Prunes one session now (SessionStore.prune), under its row lock: `missing` when there is no such (visible)
   * session, `busy` (nothing changed) while its lease is held or a run of it is unfinished.
   */
  async prune(tenantId: string, id: string, strategy: TtlStrategy): Promise<'pruned' | 'busy' | 'missing'> {
    return this.db.transaction(async (tx) => {
      const rows = rowsOf<ExpiredRow & { idle: boolean }>(
        await tx.query(
          `SELECT s.tenant_id, s.id, s.ttl_strategy, (${leaseFree('s')} AND ${firstInLine({ id: 's.id', tenant: 's.tenant_id' })}) AS idle
             FROM sessions s WHERE s.tenant_id = $1 AND s.id = $2 AND ${notExpired('s')} FOR UPDATE OF s`,
          [tenantId, id],
        ),
      );
      if (!rows[0]) return 'missing';
      if (!rows[0].idle) return 'busy';
      if (strategy === 'delete') await removeSessions(tx, rows);
      else await keepLatest(tx, rows, false);
      return 'pruned';
    });
  }

  /** The lease for a state update (SessionStore.holdForUpdate), decided in the statement that takes it. */
  async holdForUpdate(tenantId: string, id: string, holder: string, leaseMs: number): Promise<'held' | 'busy' | 'missing'> {
    const rows = rowsOf<{ known: boolean; held: boolean }>(
      await this.db.query(
        `WITH taken AS (
           UPDATE sessions s SET ${takeLease('$3::uuid', '$4')}
            WHERE s.id = $2 AND s.tenant_id = $1 AND ${leaseFree('s')} AND ${firstInLine({ id: '$2', tenant: '$1' })}
           RETURNING s.id)
         SELECT EXISTS (SELECT 1 FROM sessions WHERE id = $2 AND tenant_id = $1) AS known, EXISTS (SELECT 1 FROM taken) AS held`,
        [tenantId, id, holder, String(leaseMs)],
      ),
    );
    return rows[0]?.held ? 'held' : rows[0]?.known ? 'busy' : 'missing';
  }

  /** The session's unfinished runs (queued, running, or waiting for a tool approval), oldest first. */
  async inflight(tenantId: string, id: string): Promise<string[]> {
    const rows = rowsOf<{ id: string }>(
      await this.db.query(
        `SELECT r.id FROM runs r WHERE r.tenant_id = $1 AND r.session_id = $2 AND ${unfinished('r')} ORDER BY r.created_at, r.id`,
        [tenantId, id],
      ),
    );
    return rows.map((r) => r.id);
  }

  // --- the turn lease ---

  /**
   * Take the session's lease for this run if nobody holds a live one and no earlier-accepted run of the
   * session is unfinished (turns run in acceptance order). One statement, no waiting.
   */
  async tryLease(sessionId: string, runId: string, leaseMs: number): Promise<boolean> {
    const rows = rowsOf(
      await this.db.query(
        `UPDATE sessions s SET ${takeLease('$2', '$3')}
           FROM runs me
          WHERE me.id = $2 AND s.id = $1 AND s.tenant_id = me.tenant_id AND ${leaseFree('s')} AND ${startable('me')}
            AND ${firstInLine({ id: '$1', tenant: 'me.tenant_id' }, 'me')}
          RETURNING s.id`,
        [sessionId, runId, String(leaseMs)],
      ),
    );
    return rows.length > 0;
  }

  /** Who holds the session's live lease, and for how much longer. */
  async leaseHolder(sessionId: string, tenantId: string): Promise<{ runId: string; remainingMs: number } | null> {
    const rows = rowsOf<{ active_run_id: string; ms: number }>(
      await this.db.query(
        `SELECT s.active_run_id, ${leaseRemainingMs('s')} AS ms FROM sessions s WHERE s.id = $1 AND s.tenant_id = $2 AND ${leaseHeld('s')}`,
        [sessionId, tenantId],
      ),
    );
    return rows[0] ? { runId: rows[0].active_run_id, remainingMs: rows[0].ms } : null;
  }

  /** Heartbeat of the worker running the turn. False when the lease is no longer this run's. */
  async renewLease(sessionId: string, runId: string, attempt: number, leaseMs: number): Promise<boolean> {
    const rows = rowsOf(
      await this.db.query(
        `UPDATE sessions s SET ${extendLease('$4')}
           FROM runs r
          WHERE s.id = $1 AND s.active_run_id = $2 AND r.id = $2 AND r.attempts = $3
          RETURNING s.id`,
        [sessionId, runId, attempt, String(leaseMs)],
      ),
    );
    return rows.length > 0;
  }

  async releaseLease(sessionId: string, runId: string): Promise<void> {
    await this.db.query(`UPDATE sessions SET ${RELEASE_LEASE} WHERE id = $1 AND active_run_id = $2`, [sessionId, runId]);
  }

  // --- the thread's taint ---

  async taintOf(tenantId: string, id: string, opts: { digest?: boolean } = {}): Promise<ThreadTaint | null> {
    const digest = opts.digest === false ? 'NULL::bytea' : 'digest';
    const rows = rowsOf<TaintRow>(
      await this.db.query(
        `SELECT sources, ${digest} AS digest, opaque, tainted_at, run_id FROM thread_taint WHERE tenant_id = $1 AND session_id = $2`,
        [tenantId, id],
      ),
    );
    return rows[0] ? taintOfRow(rows[0]) : null;
  }

  /**
   * Merges into the thread's record: the row is created when missing, then locked while its digest is OR-ed with
   * this one (Postgres has no OR for bytea), so two writers never lose each other's bits. Nothing for a thread that
   * no longer exists (the foreign key: a deleted session takes its record with it).
   */
  async recordTaint(tenantId: string, id: string, runId: string, taint: ThreadTaint): Promise<void> {
    // the thread's first record: one statement, atomic on its own (no transaction round trips around it)
    const created = await poolQuery(
      this.db,
      `INSERT INTO thread_taint (tenant_id, session_id, sources, digest, opaque, run_id)
       SELECT $1, $2, $3::text[], $4::bytea, $5, $6 FROM sessions WHERE tenant_id = $1 AND id = $2
       ON CONFLICT (tenant_id, session_id) DO NOTHING RETURNING session_id`,
      [tenantId, id, taint.sources, taint.digest ? Buffer.from(taint.digest) : null, taint.opaque, runId],
    );
    if (created.length) return;
    await this.db.transaction(async (tx) => {
      const known = rowsOf<TaintRow>(
        await tx.query(`SELECT digest FROM thread_taint WHERE tenant_id = $1 AND session_id = $2 FOR UPDATE`, [tenantId, id]),
      );
      if (!known[0]) return;
      await tx.query(
        `UPDATE thread_taint SET sources = ARRAY(SELECT DISTINCT unnest(sources || $3::text[])), digest = $4::bytea,
                opaque = opaque OR $5, updated_at = now()
          WHERE tenant_id = $1 AND session_id = $2`,
        [tenantId, id, taint.sources, mergedDigest(known[0].digest, taint.digest), taint.opaque],
      );
    });
  }

  async copyTaint(tenantId: string, fromId: string, toId: string): Promise<void> {
    await this.db.query(COPY_TAINT_SQL, [tenantId, fromId, toId]);
  }
}

/** The cluster-wide key of the retention sweep's advisory lock (one sweeper at a time). */
const SWEEP_LOCK = `hashtext('agents:thread-retention-sweep')`;

interface ExpiredRow {
  tenant_id: string;
  id: string;
  ttl_strategy: TtlStrategy | null;
}

const keyOf = (r: ExpiredRow) => ({ tenantId: r.tenant_id, id: r.id });

/** Deletes the sessions and their checkpoints (their runs, messages and taint go with them: foreign keys). */
async function removeSessions(tx: SqlRunner, rows: ExpiredRow[]): Promise<void> {
  if (!rows.length) return;
  await deleteThreads(
    tx,
    rows.map((r) => threadIdOf(r.tenant_id, r.id)),
  );
  await tx.query(
    `DELETE FROM sessions s USING unnest($1::text[], $2::text[]) AS g(tenant_id, id) WHERE s.tenant_id = g.tenant_id AND s.id = g.id`,
    [rows.map((r) => r.tenant_id), rows.map((r) => r.id)],
  );
}

/**
 * Keeps the sessions with their latest checkpoint only; `expired` (the sweeper): their expiry is cleared, so they
 * are not swept again until their next activity sets it anew.
 */
async function keepLatest(tx: SqlRunner, rows: ExpiredRow[], expired: boolean): Promise<void> {
  if (!rows.length) return;
  await keepLatestCheckpoints(
    tx,
    rows.map((r) => threadIdOf(r.tenant_id, r.id)),
  );
  if (!expired) return;
  await tx.query(
    `UPDATE sessions s SET expires_at = NULL FROM unnest($1::text[], $2::text[]) AS g(tenant_id, id) WHERE s.tenant_id = g.tenant_id AND s.id = g.id`,
    [rows.map((r) => r.tenant_id), rows.map((r) => r.id)],
  );
}

function mergedDigest(known: Buffer | null, added: Uint8Array | null): Buffer | null {
  if (!known || !added) return known ?? (added ? Buffer.from(added) : null);
  const out = Buffer.from(known);
  for (let i = 0; i < out.length && i < added.length; i++) out[i] |= added[i];
  return out;
}
