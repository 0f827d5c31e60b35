import { Injectable, Logger } from '@nestjs/common';

import type { AgentDefinition, AgentOutcome, TurnContext } from '../agents/agent-definition';
import { AgentRegistry } from '../agents/agent-registry.service';
import { runInTenant } from '../auth/tenant';
import { AppConfig } from '../config/app-config';
import type { ChatResult } from '../core/chat-result';
import { detectLanguage, localize } from '../core/language';
import { withRunContext } from '../core/run-context';
import type { FinalCheckpoint } from '../database/checkpoint-writer';
import { FINAL_STATUSES, type RunEntity } from '../database/entities';
import { streamRequestOf } from '../events/graph-stream';
import { RunEventBus } from '../events/run-event-bus';
import { isModelUnavailable } from '../llm/model-errors';
import { RunBudget } from '../llm/run-budget';
import type { UsageCollector } from '../llm/usage-collector';
import { currentRun } from '../observability/log-context';
import { MetricsService } from '../observability/metrics.service';
import { phase } from '../observability/phases';
import { RunObserver } from '../observability/run-observer.service';
import { PersistentUsageCollector } from '../runs/persistent-usage';
import { RunLedger } from '../runs/store/run-ledger';
import { RunStore } from '../runs/store/run-store';
import { ScopeValidator } from '../scope/scope-validator.service';
import { ApprovalPending } from '../tools/tool-approval';
import { withBudgetReport } from './budget-outcome';
import { isTransientDbError, withDbRetry } from './db-retry';
import { GraphInterrupted, GraphRunner, type GraphRunOptions } from './graph-runner.service';
import { linkSignals } from './linked-signal';
import { type RunHandle, runIdOf } from './run-handle';
import { interruptedEnd, RunOutcomes } from './run-outcomes.service';
import { type KeptLease, RunSuperseded, SessionLeaseBusy, TurnLease } from './turn-lease.service';

export { RunSuperseded, SessionLeaseBusy } from './turn-lease.service';

export interface ExecuteOptions extends GraphRunOptions {
  /**
   * `block` (default): wait in this call until the session's earlier turns are done (sync requests).
   * `defer`: when the session is busy, throw SessionLeaseBusy at once, so a queue can park the job without
   * holding a worker slot.
   */
  leaseWait?: 'block' | 'defer';
  /** aborted → the turn stops and is handed back (status `queued`, resumes from its last checkpoint) */
  handBack?: AbortSignal;
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
 * The run's agent is not registered in this process: a worker started without the API's graphs
 * (LANGGRAPH_CONFIG) or built-in agents (BUILTIN_AGENTS). The run ends `AGENT_NOT_REGISTERED` with this message,
 * which names what to set, instead of an internal error.
 */
export class AgentNotRegisteredError extends Error {
  override readonly name = 'AgentNotRegisteredError';
  constructor(agent: string, known: string[]) {
    super(
      `agent "${agent}" is not registered in the process that took the run (it has: ${known.join(', ') || 'none'}): ` +
        'start workers with the same LANGGRAPH_CONFIG (the graphs of its langgraph.json) and BUILTIN_AGENTS as the API',
    );
  }
}

/**
 * A run's usage is written at most this often while it runs, and always with its result, a pause or a hand-back:
 * a worker that dies leaves at most this much of its last calls uncounted (two model calls a turn cost two
 * statements otherwise).
 */
const USAGE_WRITE_DELAY_MS = 250;

/**
 * Turn execution: a run's lease, its scope check and its graph, to an outcome the RunOutcomes service records —
 * for sync requests and queued runs alike (the run driver calls `execute`). Admission (RunAdmission) writes the
 * run before anything happens; RunOutcomes writes how it ended.
 */
@Injectable()
export class AgentOrchestrator {
  private readonly logger = new Logger(AgentOrchestrator.name);

  constructor(
    private readonly runs: RunStore,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    private readonly scope: ScopeValidator,
    private readonly agents: AgentRegistry,
    private readonly ledger: RunLedger,
    private readonly lease: TurnLease,
    private readonly events: RunEventBus,
    private readonly observer: RunObserver,
    private readonly graphs: GraphRunner,
    private readonly outcomes: RunOutcomes,
  ) {}

  /**
   * Runs an accepted run to a final, recorded state. Safe to call twice: an ended run returns its stored result.
   * The run stays `queued` until it holds its session's lease; `started_at` is when its graph started.
   */
  async execute(handle: RunHandle, opts: ExecuteOptions = {}): Promise<ChatResult> {
    const started = Date.now();
    const retries = this.config.durability.dbWriteRetries;
    // logs, metrics and spans of this execution (log context, run span, per-node timings)
    if ('leased' in handle) {
      const leased = { leased: handle.leased };
      return this.observer.observe(handle.leased, () =>
        this.executeAccepted(leased, started, {
          ...opts,
          newThread: handle.thread !== 'existing',
          sessionCreated: handle.thread === 'created',
          ...(handle.opening ? { opening: handle.opening } : {}),
        }),
      );
    }
    const runId = runIdOf(handle);
    // a sync turn's row tried its lease when it was written (createStarted)
    const accepted = 'accepted' in handle ? handle.accepted : undefined;
    if (!accepted || (accepted.status === 'queued' && accepted.mode !== 'sync')) {
      // a queued run whose session is free: leased and started in one statement (else the long way below)
      const leaseMs = this.config.runLockMs;
      const lease = await phase('run_start', () =>
        withDbRetry('start run', retries, () => this.runs.leaseAndStart(runId, leaseMs, this.config.durability.maxAttempts)),
      );
      if (lease) {
        const leased = { leased: lease.run };
        const read = { newThread: !lease.hasCheckpoint, ...(lease.opening ? { opening: lease.opening } : {}) };
        return this.observer.observe(lease.run, () => this.executeAccepted(leased, started, { ...opts, ...read }));
      }
    }
    // a sync turn has the row it just wrote; markRunning below re-checks its status in the same statement
    const pending = accepted ?? (await phase('run_read', () => withDbRetry('read run', retries, () => this.runs.get(runId))));
    if (FINAL_STATUSES.includes(pending.status)) return this.outcomes.storedResult(runId);
    return this.observer.observe(pending, () => this.executeAccepted({ pending }, started, opts));
  }

  /** `leased`: running and holding its session's lease already; `pending`: to be leased and started here. */
  private async executeAccepted(
    held: { leased: RunEntity } | { pending: RunEntity },
    started: number,
    opts: ExecuteOptions,
  ): Promise<ChatResult> {
    const leasedAlready = 'leased' in held;
    const pending = leasedAlready ? held.leased : held.pending;
    const runId = pending.id;
    const retries = this.config.durability.dbWriteRetries;
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(new Error('run timeout')), this.config.runTimeoutMs);
    const budget = new RunBudget(this.config.runBudget);
    // aborted when a lease renewal finds that another attempt has taken the run over (this worker was cut off)
    const superseded = new AbortController();
    // not AbortSignal.any: the worker's long-lived hand-back signal must not keep finished runs alive
    const linked = linkSignals([timer.signal, budget.signal, superseded.signal, opts.signal, opts.handBack]);
    const signal = linked.signal;
    const log = { run_id: pending.id, session_id: pending.sessionId, agent: pending.agent };
    let kept: KeptLease | undefined;
    try {
      await this.notBefore(pending, opts.leaseWait ?? 'block', signal);
      const leased =
        leasedAlready ||
        (await phase('lease', () => this.lease.take(pending, started + this.config.runTimeoutMs, signal, opts.leaseWait ?? 'block')));
      if (!leased) {
        const code = signal.aborted && !timer.signal.aborted ? 'CANCELLED' : 'SESSION_BUSY';
        const usage = PersistentUsageCollector.unwritten(await this.outcomes.usageOf(pending), pending.attempts);
        return await this.outcomes.end(
          pending,
          started,
          usage,
          this.outcomes.failure(code, 'the session stayed busy with an earlier turn', pending),
          { log },
        );
      }
      const max = this.config.durability.maxAttempts;
      if (!leasedAlready && pending.attempts >= max) {
        // every earlier start ended without a result (its worker died): a poison run, not started again
        const usage = PersistentUsageCollector.unwritten(await this.outcomes.usageOf(pending), pending.attempts);
        const msg = `started ${pending.attempts} times without finishing (RUN_MAX_ATTEMPTS=${max}); its worker stopped every time`;
        this.metrics.runRecoveries.inc({ event: 'exhausted' });
        return await this.outcomes.end(pending, started, usage, this.outcomes.failure('RUN_ATTEMPTS_EXHAUSTED', msg, pending), { log });
      }
      const run = leasedAlready
        ? pending
        : await phase('run_start', () => withDbRetry('start run', retries, () => this.runs.markRunning(runId)));
      if (!run) {
        await this.lease.release(pending);
        return await this.outcomes.storedResult(runId);
      }
      kept = this.lease.keep(run, () => superseded.abort(new RunSuperseded(run.id, run.attempts)));
      currentRun()?.started({ mode: run.mode, createdAt: run.createdAt, startAt: run.input.start_at });
      if (run.attempts > 1) this.metrics.runRecoveries.inc({ event: 'resumed' });
      const usage = new PersistentUsageCollector(
        await this.outcomes.usageOf(run),
        run.attempts,
        (u) => this.ledger.saveUsage(run.id, u),
        USAGE_WRITE_DELAY_MS,
      );
      return await this.executeLeased(run, started, { ...opts, signal, fence: kept.confirm }, usage, {
        timer: timer.signal,
        superseded: superseded.signal,
        log,
        budget,
      });
    } finally {
      clearTimeout(timeout);
      kept?.stop();
      linked.dispose();
    }
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
    ctx: { timer: AbortSignal; superseded: AbortSignal; log: Record<string, string>; budget: RunBudget },
  ): Promise<ChatResult> {
    const { signal } = opts;
    const { log, budget } = ctx;
    const agent = this.agents.get(run.agent);
    this.events.publish(run.id, 'metadata', {
      run_id: run.id,
      session_id: run.sessionId,
      agent: run.agent,
      attempt: run.attempts,
      // a thread event protocol run: its events go to the thread's log too (ProtocolRunEventBus)
      ...(streamRequestOf(run.input.stream)?.protocol
        ? { protocol: { tenant_id: run.tenantId, thread_id: run.sessionId, graph_id: run.agent } }
        : {}),
    });
    const turn: TurnContext = {
      runId: run.id,
      sessionId: run.sessionId,
      message: run.input.message,
      contractId: run.input.contract_id,
      metadata: run.input.metadata ?? {},
      ...(run.input.input ? { input: run.input.input } : {}),
      ...(run.input.command ? { command: run.input.command } : {}),
    };
    // the graph's last checkpoint, held for the run's end: written by the statement that records it (RunEnd.checkpoint)
    let checkpoint: FinalCheckpoint | undefined;
    try {
      if (!agent) throw new AgentNotRegisteredError(run.agent, this.agents.names());
      const refusal = await runInTenant(run.tenantId, () =>
        this.checkScope(agent, turn, { tenantId: run.tenantId, signal, usage, budget }),
      );
      if (refusal) return await this.outcomes.end(run, started, usage, { status: 'completed', outcome: refusal }, { log, turn });
      const ran = await runInTenant(run.tenantId, () => this.graphs.run(agent, run, turn, opts, usage, budget));
      checkpoint = ran.checkpoint;
      budget.throwIfExceeded(); // a node that swallowed the budget's error in the graph's last step
      const outcome = agent.toOutcome(ran.values, turn);
      if (ran.taint) outcome.trace = { ...outcome.trace, taint: ran.taint }; // the operator sees why high-risk calls needed consent
      const last = checkpoint;
      checkpoint = undefined; // should the end itself fail, the failure below is recorded without it
      const status = outcome.error ? 'failed' : 'completed';
      return await this.outcomes.end(run, started, usage, { status, outcome }, { log, turn, checkpoint: last });
    } catch (err) {
      if (err instanceof RunHandedBack || err instanceof RunSuperseded) throw err;
      if (ctx.superseded.aborted) throw ctx.superseded.reason as RunSuperseded; // stopped: another attempt runs it now
      if (err instanceof ApprovalPending) return await this.outcomes.pause(run, started, usage, err, log);
      if (err instanceof GraphInterrupted) return await this.outcomes.end(run, started, usage, interruptedEnd(err), { log });
      // a queued run (not a request waiting for its answer) goes back to the queue instead of failing
      const queued = opts.leaseWait === 'defer';
      const handBack =
        opts.handBack?.aborted && !ctx.timer.aborted ? 'shutdown' : queued && isTransientDbError(err) ? 'database unavailable' : null;
      if (handBack) {
        await usage.flushed(); // the attempt that resumes adds to what this one counted
        await withDbRetry('hand back', this.config.durability.dbWriteRetries, () =>
          this.runs.handBack(run.sessionId, run.id, run.attempts),
        );
        // fenced by the attempt (which it takes back by one): when a later attempt has the run by now (this worker was
        // cut off), it changed nothing
        const now = await this.runs.get(run.id).catch(() => null);
        if (now && now.attempts > run.attempts) throw new RunSuperseded(run.id, run.attempts);
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
                : (err as Error)?.name === 'EmptyInputError' // nothing to start or continue from (input null, no checkpoint)
                  ? 'EMPTY_INPUT'
                  : err instanceof AgentNotRegisteredError // a worker without the API's graphs: its message says what to set
                    ? 'AGENT_NOT_REGISTERED'
                    : 'INTERNAL_ERROR';
      if (code === 'INTERNAL_ERROR') this.logger.error({ msg: 'run failed', ...log, err: (err as Error).stack });
      const failure = withBudgetReport(this.failureOf(code, budget.exceeded ?? err, run, agent), budget);
      return this.outcomes.end(run, started, usage, failure, { log, turn, checkpoint });
    }
  }

  /**
   * How a run that threw ends: an internal error's text (SQL, stack details) stays in the log and the client gets
   * the run id to report, unless the graph is one whose errors are shown (a custom graph: `GRAPH_ERROR` with the
   * error's name and message, as LangGraph Platform reports them).
   */
  private failureOf(code: string, err: unknown, run: RunEntity, agent: AgentDefinition | undefined) {
    // `err`: what ended the run (the budget's own error when the budget was exceeded)
    const error = err as Error | undefined;
    if (code === 'INTERNAL_ERROR' && agent?.showsErrors && error instanceof Error) {
      const failure = this.outcomes.failure('GRAPH_ERROR', error.message || error.name, run);
      if (failure.outcome.error) failure.outcome.error.name = error.name || 'Error';
      return failure;
    }
    const message = code === 'INTERNAL_ERROR' ? `internal error in run ${run.id}` : (error?.message ?? code);
    return this.outcomes.failure(code, message, run);
  }

  /** Out-of-scope messages get the agent's polite refusal without running the graph. */
  private async checkScope(
    agent: AgentDefinition,
    turn: TurnContext,
    { tenantId, signal, usage, budget }: { tenantId: string; signal: AbortSignal; usage: UsageCollector; budget: RunBudget },
  ): Promise<AgentOutcome | null> {
    if (!agent.scope) return null;
    const language = detectLanguage(turn.message, this.config.defaultLanguage);
    const configurable = withRunContext({ tenantId, runId: turn.runId, language, usage, budget });
    const verdict = await this.scope.validate(turn.message, agent.scope, { signal, configurable });
    if (verdict.is_valid) return null;
    return {
      response: localize(agent.scope.refusal, language),
      toolCalls: [],
      sources: [],
      error: null,
      metadata: { scope: verdict, out_of_scope: true },
      trace: { decision_log: [{ step: 'scope_validation', ...verdict }] },
    };
  }
}
