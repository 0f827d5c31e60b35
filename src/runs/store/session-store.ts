import type { AuthFilters } from '../../auth/auth-filters';
import type { SessionEntity } from '../../database/entities';
import type { ThreadTaint } from '../../tools/thread-taint';
import type { ThreadTtl, TtlStrategy } from './thread-retention';

/**
 * The run store's side of sessions: the only writer of the `sessions` table — a session's rows (opened by a
 * turn, created as a LangGraph thread, metadata, agent, deletion) and its turn lease (turns of one session
 * never overlap, across processes too: taken before a turn starts, renewed while it runs, released with its
 * result). Reads of sessions for a turn live here too; history and listings are read by their modules.
 */
/** A session as a turn finds it (SessionStore.findForTurn). */
export interface TurnSession {
  session: SessionEntity;
  waitingRunId: string | null;
  scheduledRunId: string | null;
}

/** What a tenant's reset empties (SessionStore.resetTenant). */
export interface TenantReset {
  checkpoints?: boolean;
  runs?: boolean;
  sessions?: boolean;
}

/** A session by its key. */
export interface SessionKey {
  tenantId: string;
  id: string;
}

/** What one batch of the retention sweep did (SessionStore.sweepExpired). */
export interface SweepResult {
  /** sessions deleted with all they held (strategy `delete`) */
  deleted: SessionKey[];
  /** sessions kept with their latest checkpoint only (strategy `keep_latest`) */
  pruned: SessionKey[];
}

export abstract class SessionStore {
  /**
   * The tenant's session with a client-chosen id, started with `agent` (and `metadata`: its owner) when the tenant
   * has never used the id (two concurrent first turns with the same id end up in the same session).
   */
  abstract open(
    tenantId: string,
    id: string,
    agent: string,
    metadata?: Record<string, unknown>,
  ): Promise<{ session: SessionEntity; created: boolean }>;

  /**
   * A new session (a LangGraph thread), without agent unless given, with its own `ttl` or else the deployment's
   * default (ThreadRetention); false when the tenant already has one with this id.
   */
  abstract insert(
    tenantId: string,
    id: string,
    metadata: Record<string, unknown>,
    agent?: string | null,
    ttl?: ThreadTtl | null,
  ): Promise<boolean>;

  /**
   * The tenant's session; another tenant's (or no) session is SESSION_NOT_FOUND. Every read of sessions here leaves
   * out an expired one (`delete` strategy, run-rules `expiredForDelete`): it is gone for readers before the sweep.
   */
  abstract get(id: string, tenantId: string): Promise<SessionEntity>;

  abstract find(id: string, tenantId: string): Promise<SessionEntity | null>;

  /** The tenant's sessions, most recently updated first (optionally one agent's, those whose metadata passes `auth`). */
  abstract list(tenantId: string, limit: number, agent?: string, auth?: AuthFilters): Promise<SessionEntity[]>;

  /**
   * The session a turn arrives for, with the run it waits on, if any (a run paused for a tool approval:
   * `interrupted` and not finished; a new turn must not overtake it), and a run of it scheduled for later
   * (`after_seconds`: queued, not due yet; a turn behind it would wait until then) — one statement for all.
   */
  abstract findForTurn(id: string, tenantId: string): Promise<TurnSession | null>;

  /** Sets the session's TTL, restarting its expiry from now; false when there is no such (unexpired) session. */
  abstract setTtl(tenantId: string, id: string, ttl: ThreadTtl): Promise<boolean>;

  /**
   * One batch of the retention sweep: at most `limit` expired sessions without a held lease or an unfinished run,
   * deleted (`delete`) or cut to their latest checkpoint (`keep_latest`), in one transaction under the cluster's
   * sweep lock; null when another process holds the lock (it is sweeping).
   */
  abstract sweepExpired(limit: number): Promise<SweepResult | null>;

  /**
   * Prunes one session now (POST /threads/prune): `delete` as SessionStore.delete, or `keep_latest` (its latest
   * checkpoint only). `busy` (nothing changed) while its lease is held or a run of it is unfinished; `missing` when
   * the tenant has no such visible session.
   */
  abstract prune(tenantId: string, id: string, strategy: TtlStrategy): Promise<'pruned' | 'busy' | 'missing'>;

  /** Merges `metadata` into the session's; false when there is no such session. */
  abstract patchMetadata(tenantId: string, id: string, metadata: Record<string, unknown>): Promise<boolean>;

  /**
   * A LangGraph API run records its assistant and graph in the thread's metadata, as LangGraph Server does
   * (`metadata.assistant_id`, `metadata.graph_id`), and the thread adopts the graph when it has none.
   */
  abstract recordRunAssistant(tenantId: string, id: string, assistantId: string, graphId: string): Promise<void>;

  /** Binds a session without agent to `agent` (a state update through that graph); returns the session's agent. */
  abstract adoptAgent(tenantId: string, id: string, agent: string): Promise<string | null>;

  abstract touch(tenantId: string, id: string): Promise<void>;

  /**
   * Forgets the session: its row, its checkpoints (its runs and messages go with it: foreign keys) — in one
   * transaction that first locks the session's row, so no run takes its lease meanwhile. SESSION_BUSY (nothing
   * deleted) while its lease is held; SESSION_NOT_FOUND when there is no such session.
   */
  abstract delete(id: string, tenantId: string): Promise<void>;

  /**
   * The operator's reset of a tenant (POST /internal/truncate), in one transaction: `checkpoints` of its sessions,
   * its `runs` with the messages they wrote, its `sessions` (with their runs, messages and checkpoints).
   */
  abstract resetTenant(tenantId: string, what: TenantReset): Promise<void>;

  /**
   * A copy of a thread: a new session `toId` (with `metadata` and `agent`), the source's taint and its checkpoints,
   * in one transaction that reads the source in one snapshot (a run writing it meanwhile is copied before or after
   * each of its checkpoints, never half). False (nothing written) when the tenant already has a session `toId`.
   */
  abstract copy(tenantId: string, fromId: string, toId: string, metadata: Record<string, unknown>, agent: string | null): Promise<boolean>;

  /**
   * The session's lease for a change of its state outside a run (a state update): taken under `holder` (a fresh
   * id, no run's) for `leaseMs` when it is free and no run of the session is unfinished, in one statement — runs
   * accepted meanwhile wait for it as for an earlier turn. `busy`: nothing taken; `missing`: no such session.
   * Released with releaseLease(sessionId, holder).
   */
  abstract holdForUpdate(tenantId: string, id: string, holder: string, leaseMs: number): Promise<'held' | 'busy' | 'missing'>;

  /** The session's unfinished runs (queued, running, or waiting for a tool approval), oldest first. */
  abstract inflight(tenantId: string, id: string): Promise<string[]>;

  /**
   * Take the session's lease for this run if nobody holds a live one and no earlier-accepted run of the
   * session is unfinished (turns run in acceptance order). One statement, no waiting.
   */
  abstract tryLease(sessionId: string, runId: string, leaseMs: number): Promise<boolean>;

  /** Who holds the session's live lease, and for how much longer. */
  abstract leaseHolder(sessionId: string, tenantId: string): Promise<{ runId: string; remainingMs: number } | null>;

  /** Heartbeat of the worker running the turn's `attempt`. False when the lease is no longer this run's, or another attempt started it. */
  abstract renewLease(sessionId: string, runId: string, attempt: number, leaseMs: number): Promise<boolean>;

  abstract releaseLease(sessionId: string, runId: string): Promise<void>;

  // --- the thread's taint (tools/thread-taint.ts): untrusted text entered it; kept for its later turns and copies ---

  /** The thread's taint, null while no untrusted text entered it; `digest: false` leaves the digest out (a view). */
  abstract taintOf(tenantId: string, id: string, opts?: { digest?: boolean }): Promise<ThreadTaint | null>;

  /** Merges `taint` into the thread's (sources united, digests OR-ed, opaque kept): a record only ever grows. */
  abstract recordTaint(tenantId: string, id: string, runId: string, taint: ThreadTaint): Promise<void>;

  /** A copy of a thread starts with its taint (before its checkpoints are copied). */
  abstract copyTaint(tenantId: string, fromId: string, toId: string): Promise<void>;
}
