import { createHash, randomUUID } from 'node:crypto';

import { Injectable } from '@nestjs/common';

import { AgentRegistry } from '../agents/agent-registry.service';
import { runIdentityOf } from '../auth/run-identity';
import { currentPrincipal, currentUser, DEFAULT_TENANT, isServerIssuedId } from '../auth/tenant';
import { AppConfig } from '../config/app-config';
import {
  IdempotencyKeyReusedException,
  MessageTooLargeException,
  SessionAgentMismatchException,
  SessionAwaitingApprovalException,
  SessionBusyException,
  SessionNotFoundException,
  UnknownAgentException,
} from '../core/errors';
import { type RunEntity, type RunInput, type RunMode, type SessionEntity } from '../database/entities';
import type { RunStreamRequest } from '../events/graph-stream';
import { phase } from '../observability/phases';
import { RunLedger } from '../runs/store/run-ledger';
import { type NewRun, RunStore, type StartedInSession, type StoppedRun } from '../runs/store/run-store';
import { SessionStore } from '../runs/store/session-store';
import { withDbRetry } from './db-retry';
import { handleOf, type RunHandle } from './run-handle';

export interface TurnRequest {
  message: string;
  session_id?: string;
  agent?: string;
  contract_id?: string;
  metadata?: Record<string, unknown>;
  /** high-risk tools allowed after untrusted text entered the turn (tools/tool-consent.ts) */
  allow_tools?: string[];
  tenant_id?: string;
  /** the metadata of the session the turn starts, if it starts one (its owner: auth/resource-access.ts) */
  session_metadata?: Record<string, unknown>;
  /** `Idempotency-Key`: a repeat (same tenant, same principal, same key) returns the first run instead of starting another */
  idempotency_key?: string;
  /** what the run's events carry besides metadata, progress and result (stored with the run's input) */
  stream?: RunStreamRequest;
  /** what the run asks of its graph beyond a message (a dialect's graph fields), opaque to the run core */
  graph?: GraphRequest;
  /** not started before this time (ISO 8601; `after_seconds`) */
  start_at?: string;
  /**
   * What the run does to its session's unfinished runs: `reject` is refused (SESSION_BUSY) while there is one,
   * decided atomically where the run is written (RunStore.createExclusive); `interrupt` / `rollback` stop them in
   * the transaction that writes the run (RunStore.createSuperseding; rollback then deletes them: RunsService.submit);
   * `enqueue`, the default, waits its turn.
   */
  multitask?: MultitaskStrategy;
}

/**
 * What a run asks of its graph beyond a message: a raw graph input, a Command (resume), interrupt points, a start
 * checkpoint (a fork), the graph's configurable and context, and what its dialect shows of the run (`view`). The
 * run core stores it with the run and hands it to the graph runner; it decides nothing on it.
 */
export interface GraphRequest {
  input?: RunInput['input'];
  command?: RunInput['command'];
  interrupt_before?: RunInput['interrupt_before'];
  interrupt_after?: RunInput['interrupt_after'];
  /** fork: start from this checkpoint of the thread instead of its latest */
  checkpoint_id?: string;
  /** no input and no command: continue from the thread's checkpoint */
  continue?: boolean;
  configurable?: RunInput['configurable'];
  context?: RunInput['context'];
  /** what the dialect shows of the run (the LangGraph API: assistant_id, multitask_strategy, metadata, kwargs) */
  view?: Record<string, unknown>;
}

/** LangGraph's `multitask_strategy`, decided by the run service for every dialect. */
export type MultitaskStrategy = 'reject' | 'enqueue' | 'interrupt' | 'rollback';

/** A session the caller has just read (with no unfinished run); `metadata` is merged into it with the lease. */
export interface KnownSession {
  id: string;
  agent: string | null;
  metadata?: Record<string, unknown>;
  /** its thread has no checkpoint yet (a run started at once skips the read: a leased RunHandle's `thread`) */
  noCheckpoint?: boolean;
}

/** A sync turn as accepted: what the driver gets, or `repeat` — the first run of an idempotent repeat, started already. */
export type AcceptedTurn = { handle: Exclude<RunHandle, { runId: string }>; repeat?: undefined } | { repeat: RunEntity };

export interface AcceptOptions {
  start?: boolean;
  session?: KnownSession;
  /** multitask `interrupt` / `rollback`: the session's runs the acceptance stopped are added here (RunsService settles them) */
  stopped?: StoppedRun[];
}

/**
 * Admission: what may enter — a turn's request checked (size, agent, session, pending approval), its run written
 * before anything else happens (with its new session, or started at once holding its session's lease), and an
 * idempotent repeat answered with the first run; also a session leaving (deleteSession).
 */
@Injectable()
export class RunAdmission {
  constructor(
    private readonly agents: AgentRegistry,
    private readonly sessions: SessionStore,
    private readonly runs: RunStore,
    private readonly ledger: RunLedger,
    private readonly config: AppConfig,
  ) {}

  /**
   * Forget a session: its messages, runs and checkpoints. A session in the middle of a turn is kept (SESSION_BUSY):
   * decided and done atomically by the store (SessionStore.delete).
   */
  async deleteSession(id: string, tenantId: string): Promise<void> {
    await this.sessions.delete(id, tenantId);
  }

  /**
   * A sync turn's acceptance. Without an idempotency key it is accepted and, when its session is free, started
   * in the same statement (a leased handle). `repeat`: an idempotent repeat of a run that has started already —
   * its result is awaited, not executed again.
   */
  async acceptTurn(req: TurnRequest): Promise<AcceptedTurn> {
    if (!req.idempotency_key) {
      const { run, opening } = await phase('run_record', () =>
        withDbRetry('accept run', this.config.durability.dbWriteRetries, () => this.acceptNew(req, 'sync', true)),
      );
      return { handle: handleOf(run, req.session_id ? 'existing' : 'created', opening) };
    }
    const run = await phase('run_record', () => this.accept(req, 'sync'));
    return run.status === 'queued' ? { handle: { accepted: run } } : { repeat: run };
  }

  /**
   * Writes the run, `queued`. `start` (no idempotency key): inserted `running` holding its session's lease when
   * the session is free, in the same statement — the caller then executes it at once. `session`: the caller has
   * just read the session and it has no unfinished run, so it is not read again.
   */
  async accept(req: TurnRequest, mode: RunMode, opts: AcceptOptions = {}): Promise<RunEntity> {
    return withDbRetry('accept run', this.config.durability.dbWriteRetries, () => this.acceptOnce(req, mode, opts));
  }

  private async acceptOnce(req: TurnRequest, mode: RunMode, opts: AcceptOptions): Promise<RunEntity> {
    const key = req.idempotency_key;
    if (!key) return (await this.acceptNew(req, mode, opts.start, opts.session, opts.stopped)).run;
    // a repeat by the same principal returns the first run; a different request under the same key is refused;
    // another principal's key is another key
    const scoped = { tenantId: req.tenant_id ?? DEFAULT_TENANT, principal: idempotencyPrincipal(), key };
    const hash = requestHash(req, mode);
    const first = await this.ledger.findByIdempotencyKey(scoped);
    if (first) return this.repeatOf(first, hash, key);
    const { run } = await this.acceptNew(req, mode, false, undefined, opts.stopped);
    if (await this.ledger.claimIdempotencyKey(run.id, scoped, hash)) return run;
    await this.runs.discard(run.id, req.session_id ? null : { id: run.sessionId, tenantId: run.tenantId });
    const winner = await this.ledger.findByIdempotencyKey(scoped);
    if (!winner) throw new Error('idempotency key lost and not found');
    return this.repeatOf(winner, hash, key);
  }

  private async repeatOf(first: { id: string; requestHash: string | null }, hash: string, key: string): Promise<RunEntity> {
    if (first.requestHash !== hash) throw new IdempotencyKeyReusedException(key);
    return this.runs.get(first.id);
  }

  /**
   * `start`: inserted already running when its session is free (RunStore.createStarted); in an existing session,
   * with what the run reads of its thread first (`opening`, RunStore.startInSession). A sync turn of a known
   * session is read, checked, written and started by one statement (RunStore.startChecked).
   */
  private async acceptNew(
    req: TurnRequest,
    mode: RunMode,
    start = false,
    known?: KnownSession,
    stopped?: StoppedRun[],
  ): Promise<StartedInSession> {
    if (req.message.length > this.config.maxMessageChars) {
      throw new MessageTooLargeException(this.config.maxMessageChars, req.message.length);
    }
    const tenantId = req.tenant_id ?? DEFAULT_TENANT;
    if (start && mode === 'sync' && req.session_id && !known && (!req.multitask || req.multitask === 'enqueue')) {
      const checked = await this.startChecked(req, tenantId, req.session_id);
      if (checked) return checked;
    }
    const found = known
      ? { session: { id: known.id, agent: known.agent }, waitingRunId: null, scheduledRunId: null }
      : req.session_id
        ? await this.sessions.findForTurn(req.session_id, tenantId)
        : null;
    let session: Pick<SessionEntity, 'id' | 'agent'> | null = found?.session ?? null;
    // an unknown UUID is a server-issued id that is gone (or another tenant's); an unknown client-chosen id starts a session
    if (req.session_id && !session && isServerIssuedId(req.session_id)) throw new SessionNotFoundException(req.session_id);
    const agent = req.agent ?? session?.agent ?? this.config.defaultAgent;
    if (session) this.refuseTurn(mode, { ...found!, agent: session.agent, resolvedAgent: agent, id: session.id });
    else if (!this.agents.get(agent)) throw new UnknownAgentException(agent, this.agents.names());
    const run = { ...this.runOf(req, tenantId, mode), agent };
    // a new server-issued session: inserted with its first run, in one statement
    if (!req.session_id) {
      const inNew = { ...run, sessionId: randomUUID(), sessionMetadata: req.session_metadata };
      return { run: await (start ? this.runs.createStarted(inNew, this.config.runLockMs, true) : this.runs.createInNewSession(inNew)) };
    }
    session ??= (await this.sessions.open(tenantId, req.session_id, agent, req.session_metadata)).session;
    if (session.agent && session.agent !== agent) throw new SessionAgentMismatchException(session.id, session.agent, agent);
    const inSession = { ...run, sessionId: session.id };
    if (req.multitask === 'reject') {
      const leased = start ? { leaseMs: this.config.runLockMs, sessionMetadata: known?.metadata } : undefined;
      const accepted = await this.runs.createExclusive(inSession, leased);
      if (!accepted) throw new SessionBusyException(session.id);
      return { run: accepted };
    }
    if (req.multitask === 'interrupt' || req.multitask === 'rollback') {
      // the session's unfinished runs stopped and this one written in one transaction; it starts after they end
      const superseding = await this.runs.createSuperseding(inSession);
      stopped?.push(...superseding.stopped);
      return { run: superseding.run };
    }
    if (start) return this.runs.startInSession(inSession, this.config.runLockMs, known?.metadata);
    return { run: await this.runs.create(inSession) };
  }

  /**
   * A sync turn of a session that exists: read, checked (refuseTurn's rules, in SQL), written and started by one
   * statement. Undefined when the long way decides instead: a client-chosen id not yet used (the session is
   * created first), or a store that cannot.
   */
  private async startChecked(req: TurnRequest, tenantId: string, sessionId: string): Promise<StartedInSession | undefined> {
    if (req.agent && !this.agents.get(req.agent)) throw new UnknownAgentException(req.agent, this.agents.names());
    const checks = { agent: req.agent, defaultAgent: this.config.defaultAgent, agents: this.agents.names(), refuseScheduled: true };
    const checked = await this.runs.startChecked({ ...this.runOf(req, tenantId, 'sync'), sessionId }, checks, this.config.runLockMs);
    if (!checked) return undefined;
    if (!checked.found) {
      if (isServerIssuedId(sessionId)) throw new SessionNotFoundException(sessionId);
      return undefined;
    }
    if (checked.started) return checked.started;
    this.refuseTurn('sync', { ...checked.session, id: sessionId });
    throw new Error(`the run of session ${sessionId} was not written, and no rule refused it`);
  }

  /** Why a turn may not enter its session, in this order: the agent is unknown or not the session's, a run waits for a tool decision, or (sync) one is scheduled for later. */
  private refuseTurn(
    mode: RunMode,
    s: { id: string; agent: string | null; resolvedAgent: string; waitingRunId: string | null; scheduledRunId: string | null },
  ): void {
    if (!this.agents.get(s.resolvedAgent)) throw new UnknownAgentException(s.resolvedAgent, this.agents.names());
    if (s.agent && s.agent !== s.resolvedAgent) throw new SessionAgentMismatchException(s.id, s.agent, s.resolvedAgent);
    if (s.waitingRunId) throw new SessionAwaitingApprovalException(s.id, s.waitingRunId);
    // a turn answered in the request would wait out the scheduled run's delay, then time out: refused at once
    if (mode === 'sync' && s.scheduledRunId) throw new SessionBusyException(s.id, s.scheduledRunId);
  }

  /** A turn's run as written, but for its agent and session. */
  private runOf(req: TurnRequest, tenantId: string, mode: RunMode): Omit<NewRun, 'agent' | 'sessionId'> {
    return {
      id: randomUUID(),
      tenantId,
      owner: currentUser() ?? null,
      mode,
      input: {
        // who the run acts for, from the request's principal (never from the body): its graph's `langgraph_auth_*`
        ...identityOf(),
        message: req.message,
        contract_id: req.contract_id,
        metadata: req.metadata,
        ...(req.allow_tools?.length ? { allow_tools: req.allow_tools } : {}),
        ...(req.stream ? { stream: req.stream } : {}),
        ...graphInputOf(req),
      },
    };
  }
}

/** A request's graph fields, as stored in the run's input (absent ones left out). */
function graphInputOf({ graph: req = {}, start_at }: TurnRequest): Partial<RunInput> {
  const out: Partial<RunInput> = {};
  if (start_at) out.start_at = start_at;
  if (req.input) out.input = req.input;
  if (req.command) out.command = req.command;
  if (req.interrupt_before) out.interrupt_before = req.interrupt_before;
  if (req.interrupt_after) out.interrupt_after = req.interrupt_after;
  if (req.checkpoint_id) out.checkpoint_id = req.checkpoint_id;
  if (req.continue) out.continue = true;
  if (req.configurable && Object.keys(req.configurable).length) out.configurable = req.configurable;
  if (req.context && Object.keys(req.context).length) out.context = req.context;
  if (req.view) out.lg = req.view;
  return out;
}

/**
 * Whose `Idempotency-Key` it is (RunLedger's IdempotencyKey): the request's user (a token's, or a custom-auth
 * identity), else its API key, else nobody in particular ('': open mode, the embedded facade). Keys are retried by
 * the client that chose them; another caller of the tenant reusing one must never be handed that client's run.
 */
export function idempotencyPrincipal(principal = currentPrincipal()): string {
  if (principal?.userId !== undefined) return `user:${principal.userId}`;
  if (principal?.keyId !== undefined) return `key:${principal.keyId}`;
  return '';
}

/** What makes two requests under one idempotency key the same request. */
function requestHash(req: TurnRequest, mode: RunMode): string {
  const { message, session_id, agent, contract_id, metadata, allow_tools } = req;
  const fields = [mode, message, session_id, agent, contract_id, metadata, ...(allow_tools?.length ? [allow_tools] : [])];
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}

/** The run's identity, from the request's one principal (auth/run-identity.ts); nothing for an API key. */
function identityOf(): Partial<RunInput> {
  const identity = runIdentityOf(currentPrincipal());
  return identity ? { identity } : {};
}
