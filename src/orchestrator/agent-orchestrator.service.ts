import { createHash, randomUUID } from 'node:crypto';

import { Injectable, Logger } from '@nestjs/common';

import type { AgentDefinition, AgentOutcome, TurnContext } from '../agents/agent-definition';
import { AgentRegistry } from '../agents/agent-registry.service';
import { MODEL_UNAVAILABLE_TEXT } from '../agents/shared/outage';
import { DEFAULT_TENANT, isServerIssuedId, runInTenant, threadIdOf } from '../auth/tenant';
import { AppConfig } from '../config/app-config';
import type { ChatResult } from '../core/chat-result';
import {
  IdempotencyKeyReusedException,
  MessageTooLargeException,
  SessionAgentMismatchException,
  SessionAwaitingApprovalException,
  SessionBusyException,
  SessionNotFoundException,
  UnknownAgentException,
} from '../core/errors';
import { withRunContext } from '../core/run-context';
import { FINAL_STATUSES, type RunEntity, type RunError, type RunInput, type RunMode, type SessionEntity } from '../database/entities';
import type { RunStreamRequest } from '../events/graph-stream';
import { RunEventBus } from '../events/run-event-bus';
import { toWire } from '../events/wire';
import { LlmService } from '../llm/llm.service';
import { isModelUnavailable } from '../llm/model-errors';
import { RunBudget } from '../llm/run-budget';
import type { UsageCollector } from '../llm/usage-collector';
import { currentRun } from '../observability/log-context';
import { MetricsService } from '../observability/metrics.service';
import { phase } from '../observability/phases';
import { RunObserver } from '../observability/run-observer.service';
import { PersistentUsageCollector, type RunUsage } from '../runs/persistent-usage';
import { RunEndNotSeen, RunEnds } from '../runs/run-ends.service';
import { RunLedger } from '../runs/store/run-ledger';
import { type RunEnd, RunStore } from '../runs/store/run-store';
import { SessionStore } from '../runs/store/session-store';
import { ScopeValidator } from '../scope/scope-validator.service';
import { ApprovalPending, pendingApprovalResult, toPendingApproval } from '../tools/tool-approval';
import { withBudgetReport } from './budget-outcome';
import { isTransientDbError, withDbRetry } from './db-retry';
import { GraphInterrupted, GraphRunner, type GraphRunOptions } from './graph-runner.service';
import { linkSignals } from './linked-signal';
import { SessionLeaseBusy, TurnLease } from './turn-lease.service';

export { SessionLeaseBusy } from './turn-lease.service';

export interface TurnRequest {
  message: string;
  session_id?: string;
  agent?: string;
  contract_id?: string;
  metadata?: Record<string, unknown>;
  tenant_id?: string;
  /** `Idempotency-Key`: a repeat (same tenant, same key) returns the first run instead of starting another */
  idempotency_key?: string;
  /** what the run's events carry besides metadata, progress and result (stored with the run's input) */
  stream?: RunStreamRequest;
  /** LangGraph API runs: the raw graph input, a Command, interrupt points, a start checkpoint and the run's API view */
  input?: RunInput['input'];
  command?: RunInput['command'];
  interrupt_before?: RunInput['interrupt_before'];
  interrupt_after?: RunInput['interrupt_after'];
  checkpoint_id?: string;
  continue?: boolean;
  configurable?: RunInput['configurable'];
  /** not started before this time (ISO 8601; `after_seconds`) */
  start_at?: string;
  context?: RunInput['context'];
  lg?: Record<string, unknown>;
}

/** A session the caller has just read (with no unfinished run); `metadata` is merged into it with the lease. */
export interface KnownSession {
  id: string;
  agent: string | null;
  metadata?: Record<string, unknown>;
  /** its thread has no checkpoint yet (a run started at once skips the read: ExecuteOptions.newThread) */
  noCheckpoint?: boolean;
}

/** A sync turn as accepted: the row, whether it holds its session's lease already, whether its thread is new. */
export interface AcceptedTurn {
  run: RunEntity;
  leased: boolean;
  newThread: boolean;
  repeat: boolean;
}

export interface AcceptOptions {
  start?: boolean;
  session?: KnownSession;
}

export interface ExecuteOptions extends GraphRunOptions {
  /**
   * `block` (default): wait in this call until the session's earlier turns are done (sync requests).
   * `defer`: when the session is busy, throw SessionLeaseBusy at once, so a queue can park the job without
   * holding a worker slot.
   */
  leaseWait?: 'block' | 'defer';
  /** aborted → the turn stops and is handed back (status `queued`, resumes from its last checkpoint) */
  handBack?: AbortSignal;
  /** the run is `running` already, holding its session's lease (RunStore.createStarted / leaseAndStart) */
  startedAtAccept?: boolean;
}

/** The turn was stopped at a step boundary and queued again (shutdown, database outage); not an end. */
export class RunHandedBack extends Error {
  constructor(
    readonly runId: string,
    readonly reason: string,
  ) {
    super(`run ${runId} handed back: ${reason}`);
  }
}

/**
 * A run's usage is written at most this often while it runs, and always with its result, a pause or a hand-back:
 * a worker that dies leaves at most this much of its last calls uncounted (two model calls a turn cost two
 * statements otherwise).
 */
const USAGE_WRITE_DELAY_MS = 250;

const FAILURE_TEXT: Record<string, string> = {
  RUN_TIMEOUT: '처리 시간이 초과되었습니다. (The run took too long and was stopped.)',
  CANCELLED: '요청이 취소되었습니다. (The run was cancelled.)',
  BUDGET_EXCEEDED: '이 요청에 허용된 사용량을 초과하여 중단했습니다. (The run used up its budget of model or tool calls and was stopped.)',
  SESSION_BUSY: '이전 요청을 처리하는 중입니다. 잠시 후 다시 시도해 주세요. (An earlier turn of this session is still running.)',
  MODEL_UNAVAILABLE: MODEL_UNAVAILABLE_TEXT,
  INTERNAL_ERROR: '요청을 처리하는 중 오류가 발생했습니다. (Something went wrong while handling the request.)',
  RUN_ATTEMPTS_EXHAUSTED: '요청을 처리하지 못했습니다. (The run failed on every attempt.)',
};

/**
 * The one entry point for a turn. `accept` records the run before anything else happens; `execute` runs
 * the agent's graph on the session's thread and records the result — for sync requests and queued jobs alike.
 */
@Injectable()
export class AgentOrchestrator {
  private readonly logger = new Logger(AgentOrchestrator.name);

  constructor(
    private readonly agents: AgentRegistry,
    private readonly sessions: SessionStore,
    private readonly runs: RunStore,
    private readonly llm: LlmService,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    private readonly scope: ScopeValidator,
    private readonly ledger: RunLedger,
    private readonly lease: TurnLease,
    private readonly events: RunEventBus,
    private readonly observer: RunObserver,
    private readonly graphs: GraphRunner,
    private readonly ends: RunEnds,
  ) {}

  /** Forget a session: its messages, runs and checkpoints. A session in the middle of a turn is kept. */
  async deleteSession(id: string, tenantId: string): Promise<void> {
    const session = await this.sessions.get(id, tenantId);
    if (session.activeRunId && session.leaseExpiresAt && session.leaseExpiresAt > new Date()) {
      throw new SessionBusyException(id);
    }
    await this.agents.deleteThread(threadIdOf(tenantId, id));
    await this.sessions.delete(id, tenantId);
  }

  /**
   * A sync turn's acceptance. Without an idempotency key it is accepted and, when its session is free, started
   * in the same statement (`leased`). `repeat`: an idempotent repeat of a run that has started already — its
   * result is awaited, not executed again.
   */
  async acceptTurn(req: TurnRequest): Promise<AcceptedTurn> {
    if (!req.idempotency_key) {
      const run = await phase('run_record', () =>
        withDbRetry('accept run', this.config.durability.dbWriteRetries, () => this.acceptNew(req, 'sync', true)),
      );
      return { run, leased: run.status === 'running', newThread: !req.session_id, repeat: false };
    }
    const run = await phase('run_record', () => this.accept(req, 'sync'));
    return { run, leased: false, newThread: false, repeat: run.status !== 'queued' };
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
    if (!key) return this.acceptNew(req, mode, opts.start, opts.session);
    // a repeat returns the first run; a different request under the same key is refused
    const tenantId = req.tenant_id ?? 'default';
    const hash = requestHash(req, mode);
    const first = await this.ledger.findByIdempotencyKey(tenantId, key);
    if (first) return this.repeatOf(first, hash, key);
    const run = await this.acceptNew(req, mode);
    if (await this.ledger.claimIdempotencyKey(run.id, key, hash)) return run;
    await this.runs.discard(run.id, req.session_id ? null : { id: run.sessionId, tenantId: run.tenantId });
    const winner = await this.ledger.findByIdempotencyKey(tenantId, key);
    if (!winner) throw new Error('idempotency key lost and not found');
    return this.repeatOf(winner, hash, key);
  }

  private async repeatOf(first: { id: string; requestHash: string | null }, hash: string, key: string): Promise<RunEntity> {
    if (first.requestHash !== hash) throw new IdempotencyKeyReusedException(key);
    return this.runs.get(first.id);
  }

  /** A sync repeat of an idempotent request: the first run's result once it has ended; SessionBusy past twice the run timeout. */
  async resultOf(runId: string): Promise<ChatResult> {
    try {
      return this.resultIn(await this.ends.awaitEnd(runId, { timeoutMs: this.config.runTimeoutMs * 2 }));
    } catch (err) {
      if (err instanceof RunEndNotSeen) throw new SessionBusyException(err.run.sessionId);
      throw err;
    }
  }

  /** `start`: inserted already running when its session is free (RunStore.createStarted) */
  private async acceptNew(req: TurnRequest, mode: RunMode, start = false, known?: KnownSession): Promise<RunEntity> {
    if (req.message.length > this.config.maxMessageChars) {
      throw new MessageTooLargeException(this.config.maxMessageChars, req.message.length);
    }
    const tenantId = req.tenant_id ?? DEFAULT_TENANT;
    const found = known
      ? { session: { id: known.id, agent: known.agent }, waitingRunId: null }
      : req.session_id
        ? await this.sessions.findForTurn(req.session_id, tenantId)
        : null;
    let session: Pick<SessionEntity, 'id' | 'agent'> | null = found?.session ?? null;
    // an unknown UUID is a server-issued id that is gone (or another tenant's); an unknown client-chosen id starts a session
    if (req.session_id && !session && isServerIssuedId(req.session_id)) throw new SessionNotFoundException(req.session_id);
    const agent = req.agent ?? session?.agent ?? this.config.defaultAgent;
    if (!this.agents.get(agent)) throw new UnknownAgentException(agent, this.agents.names());
    if (session?.agent && session.agent !== agent) throw new SessionAgentMismatchException(session.id, session.agent, agent);
    if (session && found?.waitingRunId) throw new SessionAwaitingApprovalException(session.id, found.waitingRunId);
    const run = {
      id: randomUUID(),
      tenantId,
      agent,
      mode,
      input: {
        message: req.message,
        contract_id: req.contract_id,
        metadata: req.metadata,
        ...(req.stream ? { stream: req.stream } : {}),
        ...lgInputOf(req),
      },
    };
    // a new server-issued session: inserted with its first run, in one statement
    if (!req.session_id) {
      const inNew = { ...run, sessionId: randomUUID() };
      return start ? this.runs.createStarted(inNew, this.config.runLockMs, true) : this.runs.createInNewSession(inNew);
    }
    session ??= (await this.sessions.open(tenantId, req.session_id, agent)).session;
    if (session.agent && session.agent !== agent) throw new SessionAgentMismatchException(session.id, session.agent, agent);
    if (start) return this.runs.createStarted({ ...run, sessionId: session.id }, this.config.runLockMs, false, known?.metadata);
    return this.runs.create({ ...run, sessionId: session.id });
  }

  /**
   * Runs an accepted run to a final, recorded state. Safe to call twice: an ended run returns its stored result.
   * The run stays `queued` until it holds its session's lease; `started_at` is when its graph started.
   */
  async execute(runId: string, opts: ExecuteOptions = {}, accepted?: RunEntity): Promise<ChatResult> {
    const started = Date.now();
    const retries = this.config.durability.dbWriteRetries;
    // a sync turn's row tried its lease when it was written (createStarted)
    if (!opts.startedAtAccept && (!accepted || (accepted.status === 'queued' && accepted.mode !== 'sync'))) {
      // a queued run whose session is free: leased and started in one statement (else the long way below)
      const leaseMs = this.config.runLockMs;
      const lease = await phase('run_start', () =>
        withDbRetry('start run', retries, () => this.runs.leaseAndStart(runId, leaseMs, this.config.durability.maxAttempts)),
      );
      if (lease) {
        const newThread = opts.newThread || !lease.hasCheckpoint;
        return this.observer.observe(lease.run, () =>
          this.executeAccepted(lease.run, started, { ...opts, startedAtAccept: true, newThread }),
        );
      }
    }
    // a sync turn has the row it just wrote; markRunning below re-checks its status in the same statement
    const pending = accepted ?? (await phase('run_read', () => withDbRetry('read run', retries, () => this.runs.get(runId))));
    if (FINAL_STATUSES.includes(pending.status)) return this.storedResult(runId);
    // logs, metrics and spans of this execution (log context, run span, per-node timings)
    return this.observer.observe(pending, () => this.executeAccepted(pending, started, opts));
  }

  private async executeAccepted(pending: RunEntity, started: number, opts: ExecuteOptions): Promise<ChatResult> {
    const runId = pending.id;
    const retries = this.config.durability.dbWriteRetries;
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(new Error('run timeout')), this.config.runTimeoutMs);
    const budget = new RunBudget(this.config.runBudget);
    // not AbortSignal.any: the worker's long-lived hand-back signal must not keep finished runs alive
    const linked = linkSignals([timer.signal, budget.signal, opts.signal, opts.handBack]);
    const signal = linked.signal;
    const log = { run_id: pending.id, session_id: pending.sessionId, agent: pending.agent };
    let stopRenewing: (() => void) | undefined;
    try {
      await this.notBefore(pending, opts.leaseWait ?? 'block', signal);
      const leased =
        opts.startedAtAccept ||
        (await phase('lease', () => this.lease.take(pending, started + this.config.runTimeoutMs, signal, opts.leaseWait ?? 'block')));
      if (!leased) {
        const code = signal.aborted && !timer.signal.aborted ? 'CANCELLED' : 'SESSION_BUSY';
        const usage = PersistentUsageCollector.unwritten(await this.usageOf(pending), pending.attempts);
        return await this.end(pending, started, usage, this.failure(code, 'the session stayed busy with an earlier turn'), { log });
      }
      const max = this.config.durability.maxAttempts;
      if (!opts.startedAtAccept && pending.attempts >= max) {
        // every earlier start ended without a result (its worker died): a poison run, not started again
        const usage = PersistentUsageCollector.unwritten(await this.usageOf(pending), pending.attempts);
        const msg = `started ${pending.attempts} times without finishing (RUN_MAX_ATTEMPTS=${max}); its worker stopped every time`;
        this.metrics.runRecoveries.inc({ event: 'exhausted' });
        return await this.end(pending, started, usage, this.failure('RUN_ATTEMPTS_EXHAUSTED', msg), { log });
      }
      const run = opts.startedAtAccept
        ? pending
        : await phase('run_start', () => withDbRetry('start run', retries, () => this.runs.markRunning(runId)));
      if (!run) {
        await this.lease.release(pending);
        return await this.storedResult(runId);
      }
      stopRenewing = this.lease.keep(run);
      currentRun()?.started({ mode: run.mode, createdAt: run.createdAt, startAt: run.input.start_at });
      if (run.attempts > 1) this.metrics.runRecoveries.inc({ event: 'resumed' });
      const usage = new PersistentUsageCollector(
        await this.usageOf(run),
        run.attempts,
        (u) => this.ledger.saveUsage(run.id, u),
        USAGE_WRITE_DELAY_MS,
      );
      return await this.executeLeased(run, started, { ...opts, signal }, usage, { timer: timer.signal, log, budget });
    } finally {
      clearTimeout(timeout);
      stopRenewing?.();
      linked.dispose();
    }
  }

  /** The run row, or null when it does not exist. */
  async peek(runId: string): Promise<RunEntity | null> {
    return this.runs.get(runId).catch(() => null);
  }

  /**
   * Ends an unfinished run as `failed` because its job used up its attempts (or crashed its workers every
   * time). Nothing happens to a run that has already ended.
   */
  async abandon(runId: string, message: string): Promise<void> {
    const run = await this.peek(runId);
    if (!run || FINAL_STATUSES.includes(run.status)) return;
    const usage = PersistentUsageCollector.unwritten(await this.usageOf(run), run.attempts);
    const log = { run_id: run.id, session_id: run.sessionId, agent: run.agent };
    await this.end(run, Date.now(), usage, this.failure('RUN_ATTEMPTS_EXHAUSTED', `failed on every attempt: ${message}`), { log });
  }

  /** What earlier attempts of the run recorded (nothing to read for a first attempt). */
  private async usageOf(run: RunEntity): Promise<RunUsage> {
    const totals = { calls: run.llmCalls ?? 0, promptTokens: run.promptTokens ?? 0, completionTokens: run.completionTokens ?? 0 };
    if (run.attempts <= 1 && totals.calls === 0) return { totals, calls: [] };
    return { totals, calls: await this.ledger.modelCalls(run.id).catch(() => []) };
  }

  /**
   * A run with `start_at` (`after_seconds`) in the future does not start yet: `defer` hands it back to its queue
   * (SessionLeaseBusy with the time left, so it stays `queued` without holding a slot), `block` waits.
   */
  private async notBefore(run: RunEntity, mode: 'block' | 'defer', signal: AbortSignal): Promise<void> {
    const left = run.input.start_at ? Date.parse(run.input.start_at) - Date.now() : 0;
    if (!(left > 0)) return;
    if (mode === 'defer') throw new SessionLeaseBusy(run.sessionId, left);
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, left);
      signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    });
  }

  private async executeLeased(
    run: RunEntity,
    started: number,
    opts: ExecuteOptions & { signal: AbortSignal },
    usage: PersistentUsageCollector,
    ctx: { timer: AbortSignal; log: Record<string, string>; budget: RunBudget },
  ): Promise<ChatResult> {
    const { signal } = opts;
    const { log, budget } = ctx;
    const agent = this.agents.get(run.agent);
    this.events.publish(run.id, 'metadata', { run_id: run.id, session_id: run.sessionId, agent: run.agent, attempt: run.attempts });
    const turn: TurnContext = {
      runId: run.id,
      sessionId: run.sessionId,
      message: run.input.message,
      contractId: run.input.contract_id,
      metadata: run.input.metadata ?? {},
      ...(run.input.input ? { input: run.input.input } : {}),
      ...(run.input.command ? { command: run.input.command } : {}),
    };
    try {
      if (!agent) throw new Error(`agent ${run.agent} is no longer registered`);
      const refusal = await runInTenant(run.tenantId, () =>
        this.checkScope(agent, turn, { tenantId: run.tenantId, signal, usage, budget }),
      );
      if (refusal) return await this.end(run, started, usage, { status: 'completed', outcome: refusal }, { log, turn });
      const values = await runInTenant(run.tenantId, () => this.graphs.run(agent, run, turn, opts, usage, budget));
      budget.throwIfExceeded(); // a node that swallowed the budget's error in the graph's last step
      const outcome = agent.toOutcome(values, turn);
      return await this.end(run, started, usage, { status: outcome.error ? 'failed' : 'completed', outcome }, { log, turn });
    } catch (err) {
      if (err instanceof RunHandedBack) throw err;
      if (err instanceof ApprovalPending) return await this.pause(run, started, usage, err, log);
      if (err instanceof GraphInterrupted) return await this.end(run, started, usage, interruptedEnd(err), { log });
      // a queued run (not a request waiting for its answer) goes back to the queue instead of failing
      const queued = opts.leaseWait === 'defer';
      const handBack =
        opts.handBack?.aborted && !ctx.timer.aborted ? 'shutdown' : queued && isTransientDbError(err) ? 'database unavailable' : null;
      if (handBack) {
        await usage.flushed(); // the attempt that resumes adds to what this one counted
        await withDbRetry('hand back', this.config.durability.dbWriteRetries, () => this.runs.handBack(run.sessionId, run.id));
        this.logger.warn({ msg: 'run handed back', ...log, reason: handBack });
        this.metrics.runRecoveries.inc({ event: 'handed_back' });
        throw new RunHandedBack(run.id, handBack);
      }
      const code = budget.exceeded
        ? 'BUDGET_EXCEEDED'
        : ctx.timer.aborted
          ? 'RUN_TIMEOUT'
          : signal.aborted
            ? 'CANCELLED'
            : isModelUnavailable(err)
              ? 'MODEL_UNAVAILABLE'
              : (err as Error)?.name === 'GraphRecursionError' // the run's recursion_limit: its message is safe to show
                ? 'RECURSION_LIMIT'
                : 'INTERNAL_ERROR';
      if (code === 'INTERNAL_ERROR') this.logger.error({ msg: 'run failed', ...log, err: (err as Error).stack });
      // an internal error's text (SQL, stack details) stays in the log; the client gets the run id to report
      const message = code === 'INTERNAL_ERROR' ? `internal error in run ${run.id}` : (budget.exceeded ?? (err as Error)).message;
      const failure = withBudgetReport(this.failure(code, message), budget);
      return this.end(run, started, usage, failure, { log, turn });
    }
  }

  /** A tool call waits for an operator (TOOL_APPROVAL): `interrupted` until approve/reject re-queues the run. */
  private async pause(
    run: RunEntity,
    started: number,
    usage: PersistentUsageCollector,
    { request }: ApprovalPending,
    log: Record<string, string>,
  ): Promise<ChatResult> {
    await usage.flushed(); // the attempt resumed after the decision adds to what this one counted
    const pending = toPendingApproval(request, usage.calls);
    const paused = await this.runs.pause(run.id, pending, { waiting_for: 'approval', tool: pending.tool });
    this.logger.log({ msg: 'run waits for tool approval', ...log, tool: pending.tool, tool_call_id: pending.tool_call_id });
    if (!paused) return this.storedResult(run.id);
    const ms = Date.now() - started;
    const result = pendingApprovalResult(run, pending, { ms, llmCalls: usage.totals.calls, model: this.llm.modelName });
    this.events.publish(run.id, 'interrupt', result); // not an end: the run goes on after the decision
    return result;
  }

  /** Out-of-scope messages get the agent's polite refusal without running the graph. */
  private async checkScope(
    agent: AgentDefinition,
    turn: TurnContext,
    { tenantId, signal, usage, budget }: { tenantId: string; signal: AbortSignal; usage: UsageCollector; budget: RunBudget },
  ): Promise<AgentOutcome | null> {
    if (!agent.scope) return null;
    const configurable = withRunContext({ tenantId, runId: turn.runId, usage, budget });
    const verdict = await this.scope.validate(turn.message, agent.scope, { signal, configurable });
    if (verdict.is_valid) return null;
    return {
      response: agent.scope.refusal,
      toolCalls: [],
      sources: [],
      error: null,
      metadata: { scope: verdict, out_of_scope: true },
      trace: { decision_log: [{ step: 'scope_validation', ...verdict }] },
    };
  }

  private failure(code: string, message: string): { status: RunEnd['status']; outcome: AgentOutcome } {
    const status = code === 'CANCELLED' ? ('cancelled' as const) : ('failed' as const);
    const error: RunError = { code, message: message.slice(0, 500) };
    return {
      status,
      outcome: { response: FAILURE_TEXT[code] ?? FAILURE_TEXT.INTERNAL_ERROR, toolCalls: [], sources: [], error, metadata: {}, trace: {} },
    };
  }

  private async end(
    run: RunEntity,
    started: number,
    usage: PersistentUsageCollector,
    { status, outcome }: { status: RunEnd['status']; outcome: AgentOutcome },
    ctx: { log: Record<string, string>; turn?: TurnContext },
  ): Promise<ChatResult> {
    await phase('usage_flush', () => usage.settled());
    const totals = usage.runTotals;
    const result: ChatResult = {
      response: outcome.response,
      session_id: run.sessionId,
      run_id: run.id,
      agent: run.agent,
      tools_used: [...new Set(outcome.toolCalls.map((c) => c.name))],
      tool_calls: outcome.toolCalls,
      sources: outcome.sources,
      execution_time_ms: Date.now() - started,
      llm_calls: totals.calls,
      error: outcome.error,
      metadata: {
        thread_id: run.sessionId,
        model_used: totals.calls > 0,
        model: this.llm.modelName,
        ...outcome.metadata,
      },
    };
    const recorded = await phase('result_txn', () =>
      withDbRetry('finish run', this.config.durability.dbWriteRetries, () =>
        this.runs.finish(run, {
          status,
          result,
          error: outcome.error,
          trace: { ...outcome.trace, model_calls: usage.runCalls, node_timings: currentRun()?.nodeTimings ?? [], attempts: run.attempts },
          usage: totals,
          messages: ctx.turn ? { user: ctx.turn.message, assistant: outcome.response } : null,
          summary: outcome.summary || null,
        }),
      ),
    );
    if (recorded) {
      this.metrics.recordRun({ agent: run.agent, mode: run.mode, status, ms: result.execution_time_ms });
      currentRun()?.ended(result.metadata);
    }
    this.logger.log({ msg: 'run ended', ...ctx.log, status, ms: result.execution_time_ms, llm_calls: totals.calls });
    const final = recorded ? result : await this.storedResult(run.id);
    this.events.publish(run.id, 'result', final);
    this.events.end(run.id);
    return final;
  }

  private async storedResult(runId: string): Promise<ChatResult> {
    return this.resultIn(await this.runs.get(runId));
  }

  private resultIn(run: RunEntity): ChatResult {
    if (run.result) return run.result as unknown as ChatResult;
    // ended without a result (cancelled while queued): answer in the same shape
    return {
      response: FAILURE_TEXT[run.error?.code ?? 'CANCELLED'] ?? FAILURE_TEXT.CANCELLED,
      session_id: run.sessionId,
      run_id: run.id,
      agent: run.agent,
      tools_used: [],
      tool_calls: [],
      sources: [],
      execution_time_ms: 0,
      llm_calls: 0,
      error: run.error ?? { code: 'CANCELLED', message: 'cancelled' },
      metadata: { thread_id: run.sessionId },
    };
  }
}

function interruptedEnd(err: GraphInterrupted): { status: 'interrupted'; outcome: AgentOutcome } {
  return {
    status: 'interrupted',
    outcome: {
      response: '',
      toolCalls: [],
      sources: [],
      error: null,
      metadata: { interrupted: true, interrupts: toWire(err.interrupts) },
      trace: {},
    },
  };
}

/** The LangGraph API fields of a request, as stored in the run's input (absent ones left out). */
function lgInputOf(req: TurnRequest): Partial<RunInput> {
  const out: Partial<RunInput> = {};
  if (req.input) out.input = req.input;
  if (req.command) out.command = req.command;
  if (req.interrupt_before) out.interrupt_before = req.interrupt_before;
  if (req.interrupt_after) out.interrupt_after = req.interrupt_after;
  if (req.checkpoint_id) out.checkpoint_id = req.checkpoint_id;
  if (req.continue) out.continue = true;
  if (req.configurable && Object.keys(req.configurable).length) out.configurable = req.configurable;
  if (req.context && Object.keys(req.context).length) out.context = req.context;
  if (req.start_at) out.start_at = req.start_at;
  if (req.lg) out.lg = req.lg;
  return out;
}

/** What makes two requests under one idempotency key the same request. */
function requestHash(req: TurnRequest, mode: RunMode): string {
  const { message, session_id, agent, contract_id, metadata } = req;
  return createHash('sha256')
    .update(JSON.stringify([mode, message, session_id, agent, contract_id, metadata]))
    .digest('hex');
}
