import type { ChatResult } from '../../core/chat-result';
import type { LatestCheckpointRow } from '../../database/checkpoint-tables';
import type { FinalCheckpoint } from '../../database/checkpoint-writer';
import type { PendingApproval, RunEntity, RunError, RunInput, RunMode, RunStatus } from '../../database/entities';
import type { ThreadTaint } from '../../tools/thread-taint';

export interface NewRun {
  id: string;
  sessionId: string;
  tenantId: string;
  agent: string;
  mode: RunMode;
  input: RunInput;
  /** the user who asked for the run (a bearer token's user), recorded as its owner; null for an API key */
  owner?: string | null;
  /** the metadata of the session the run starts (createInNewSession, createStarted with `newSession`): its owner */
  sessionMetadata?: Record<string, unknown>;
}

export interface RunEnd {
  status: Extract<RunStatus, 'completed' | 'failed' | 'cancelled' | 'interrupted'>;
  result: ChatResult | null;
  error: RunError | null;
  trace: Record<string, unknown> | null;
  usage: { calls: number; promptTokens: number; completionTokens: number };
  /** the turn's two messages, recorded with the result (none when the turn never ran) */
  messages: { user: string; assistant: string } | null;
  /** the session's running summary after this turn (agents with summarising memory) */
  summary?: string | null;
  /** the run's last checkpoint, written with its end (both or neither); none when the run wrote its own */
  checkpoint?: FinalCheckpoint;
}

/** What a run started in an existing session reads of its thread first, read by the statement that started it. */
export interface ThreadOpening {
  /** the thread's latest checkpoint (the official saver's row), null when it has none */
  checkpoint: LatestCheckpointRow | null;
  taint: ThreadTaint | null;
}

/** A sync turn's run in an existing session (RunStore.startInSession). */
export interface StartedInSession {
  run: RunEntity;
  /** when the run took the lease and the store read its thread with it; absent: the run reads its thread itself */
  opening?: ThreadOpening;
}

/** The checks a continuing turn's session must pass, decided by the statement that starts its run (RunStore.startChecked). */
export interface SessionChecks {
  /** the request's agent, when it names one (else the session's, else `defaultAgent`) */
  agent?: string;
  defaultAgent: string;
  /** the agents this process runs */
  agents: string[];
  /** a run of the session scheduled for later refuses the turn */
  refuseScheduled: boolean;
}

/** A checked start: the session as the statement found it, and the run when every check passed. */
export type CheckedStart =
  | { found: false }
  | {
      found: true;
      session: { agent: string | null; resolvedAgent: string; waitingRunId: string | null; scheduledRunId: string | null };
      started?: StartedInSession;
    };

/** A run stopped by a superseding acceptance: `cancelled` at once (it had not started), or `flagged` for its worker. */
export interface StoppedRun {
  id: string;
  outcome: 'cancelled' | 'flagged';
}

export interface ReconcileCandidate {
  id: string;
  status: 'queued' | 'running';
  attempts: number;
}

/**
 * The run store: the only writer of a run's state. Each transition — accept, lease + start, start, hand back,
 * pause, decide, finish (completed, failed, interrupted), cancel — is one statement, with the session's lease
 * and messages it carries; the rules they decide on are written once (run-rules.ts). Usage, idempotency keys and
 * the tool ledger are in RunLedger, session rows and the lease itself in SessionStore, all beside this file.
 */
export abstract class RunStore {
  abstract create(run: NewRun): Promise<RunEntity>;

  /**
   * A queued run with the new session it starts, in one statement; runs accepted while one is being written go
   * in the next statement together (GroupCommit: a burst of submissions shares its round trips and commits).
   */
  abstract createInNewSession(run: NewRun): Promise<RunEntity>;

  /**
   * A sync turn's run, accepted and started in one statement (the separate insert, lease and start cost three
   * round trips more): inserted `running` (attempt 1) holding its session's lease when the session is free and
   * none of its runs is unfinished (run-rules.ts: every other run is older) —
   * otherwise `queued`, to wait for the lease as any run does. `newSession` inserts the session too, already
   * leased to the run. `sessionMetadata` is merged into the session's metadata by the same update, when the
   * lease is taken (the caller writes it itself otherwise), and a session without agent adopts the run's.
   */
  abstract createStarted(run: NewRun, leaseMs: number, newSession?: boolean, sessionMetadata?: Record<string, unknown>): Promise<RunEntity>;

  /**
   * createStarted in an existing session, and — when the run took the lease — what it reads of its thread first
   * (its latest checkpoint and taint record), read by the same statement: a continuing turn's admission and
   * opening reads in one round trip. A store that cannot read them along leaves `opening` out.
   */
  async startInSession(run: NewRun, leaseMs: number, sessionMetadata?: Record<string, unknown>): Promise<StartedInSession> {
    return { run: await this.createStarted(run, leaseMs, false, sessionMetadata) };
  }

  /**
   * startInSession after the session's checks (SessionChecks), decided in the same statement: a continuing turn's
   * session read, admission and opening reads in one round trip; nothing is written unless every check passes.
   * Undefined from a store that cannot: the caller reads the session and checks it first.
   */
  async startChecked(
    _run: Omit<NewRun, 'agent'>,
    _checks: SessionChecks,
    _leaseMs: number,
    _sessionMetadata?: Record<string, unknown>,
  ): Promise<CheckedStart | undefined> {
    return undefined;
  }

  /**
   * A run accepted only when no run of its session is unfinished (multitask `reject`), decided where it is written:
   * the session's row is locked first, so concurrent exclusive acceptances on one session take turns, and the check
   * and insert after the lock see every run committed meanwhile. `start`: inserted `running` holding the lease when
   * the lease is free (as createStarted, `sessionMetadata` merged with it), `queued` otherwise. Null when the
   * session has an unfinished run; SESSION_NOT_FOUND when the session is gone.
   */
  abstract createExclusive(run: NewRun, start?: { leaseMs: number; sessionMetadata?: Record<string, unknown> }): Promise<RunEntity | null>;

  /**
   * Multitask `interrupt` / `rollback`, decided where the run is written: with the session's row locked (as
   * createExclusive), every unfinished run of the session is stopped — cancelled at once when it has not started,
   * flagged for its worker when it is running — and the new run inserted `queued`, all in one transaction. The new
   * run starts only once the stopped ones have ended (run-rules.ts firstInLine). SESSION_NOT_FOUND when the
   * session is gone.
   */
  abstract createSuperseding(run: NewRun): Promise<{ run: RunEntity; stopped: StoppedRun[] }>;

  /**
   * A queued run, leased and started in one statement (instead of read, lease, start): when its session's lease
   * is free and no earlier-accepted run of the session is unfinished (run-rules.ts), it is not
   * cancelled, not due later (`start_at`) and has attempts left. Null otherwise — the caller then takes the
   * long way, which tells those cases apart. `hasCheckpoint`: whether the session's thread (`tenant:session`, as
   * threadIdOf names it) has a checkpoint yet — a run that started its session has none to read; `opening`: what
   * the run reads of its thread first, when the store read it with the start (as startInSession).
   */
  abstract leaseAndStart(
    id: string,
    leaseMs: number,
    maxAttempts: number,
  ): Promise<{ run: RunEntity; hasCheckpoint: boolean; opening?: ThreadOpening } | null>;

  abstract get(id: string, what?: 'job' | 'run'): Promise<RunEntity>;

  /** The tenant's run; another tenant's run is not found either. */
  abstract getForTenant(id: string, tenantId: string, what?: 'job' | 'run'): Promise<RunEntity>;

  abstract listBySession(sessionId: string, tenantId: string): Promise<RunEntity[]>;

  abstract latestFinished(sessionId: string, tenantId: string): Promise<RunEntity | null>;

  /** queued|running → running (attempt counted). Null when the run already ended or was cancelled. */
  abstract markRunning(id: string): Promise<RunEntity | null>;

  abstract setProgress(id: string, progress: Record<string, unknown>): Promise<void>;

  /**
   * Ends a run: its status, result and trace, the turn's messages and the release of the session lease —
   * in one statement, so it is atomic without holding a transaction open (which would stall the embedded
   * Postgres). Returns false (and writes nothing) when the run had already ended, or when another attempt has
   * started it since `run` was read (`run.attempts` is the fencing token: a worker cut off past its lease, whose run
   * was taken over, must not end it).
   */
  abstract finish(run: RunEntity, end: RunEnd): Promise<boolean>;

  /** queued → cancelled at once; running → flagged, the executing worker stops it. */
  abstract requestCancel(id: string): Promise<{ outcome: 'cancelled' | 'flagged' | 'ended'; status: RunStatus }>;

  /** A turn stopped at a step boundary (shutdown, database outage): queued again, the attempt not counted (unless `attempt` is no longer the run's). */
  abstract handBack(sessionId: string, runId: string, attempt: number): Promise<void>;

  /**
   * A tool call waits for an operator (TOOL_APPROVAL): running → interrupted with the pending call, the session
   * lease released — one statement. False when the run was no longer running (in this `attempt`).
   */
  abstract pause(runId: string, attempt: number, pending: PendingApproval, progress: Record<string, unknown>): Promise<boolean>;

  /** The operator's decision is being acted on: drop it, so a retried attempt asks again instead of reusing it. */
  abstract consumeDecision(runId: string): Promise<void>;

  /** interrupted → queued with the decision, exactly once; false when the run is not waiting for one (already decided, ended …). */
  abstract decide(runId: string, approved: boolean): Promise<boolean>;

  /** Undo an acceptance that lost an idempotency race (never enqueued), and the new session it started. */
  abstract discard(runId: string, session: { id: string; tenantId: string } | null): Promise<void>;

  /**
   * Deletes an ended run: its row, its messages, and the checkpoints of the thread it wrote (their metadata
   * carries its run id; blobs shared with other checkpoints stay) — in one transaction. Returns false when nothing
   * was deleted.
   */
  abstract deleteRun(tenantId: string, checkpointThread: string, runId: string): Promise<boolean>;

  /**
   * Accepted runs nobody is executing: queued for more than `graceMs`, or running without a live session lease
   * (its worker died or lost its job). A sync run is left to its request until `syncGraceMs` (its client may
   * still be waiting for the lease). The reconciler checks each against the queue.
   */
  abstract unfinished(graceMs: number, syncGraceMs: number, limit?: number): Promise<ReconcileCandidate[]>;

  /** The run of the session that takes the lease next (the earliest accepted unfinished one). */
  abstract nextOfSession(sessionId: string, tenantId: string): Promise<string | null>;

  /** Runs that should be executing but nobody holds: for re-queueing after a crash. */
  abstract orphans(olderThanMs: number): Promise<RunEntity[]>;
}
