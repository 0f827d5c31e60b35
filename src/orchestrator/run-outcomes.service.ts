import { Injectable, Logger } from '@nestjs/common';

import type { AgentOutcome, TurnContext } from '../agents/agent-definition';
import { type AgentTexts, agentTexts } from '../agents/shared/messages';
import { AppConfig } from '../config/app-config';
import type { ChatResult } from '../core/chat-result';
import { SessionBusyException } from '../core/errors';
import { detectLanguage } from '../core/language';
import type { FinalCheckpoint } from '../database/checkpoint-writer';
import { FINAL_STATUSES, type RunEntity, type RunError } from '../database/entities';
import { RunEventBus } from '../events/run-event-bus';
import { toWire } from '../events/wire';
import { LlmService } from '../llm/llm.service';
import { currentRun } from '../observability/log-context';
import { MetricsService } from '../observability/metrics.service';
import { phase } from '../observability/phases';
import { PersistentUsageCollector, type RunUsage } from '../runs/persistent-usage';
import { RunEndNotSeen, RunEnds } from '../runs/run-ends.service';
import { RunLedger } from '../runs/store/run-ledger';
import { type RunEnd, RunStore } from '../runs/store/run-store';
import { ApprovalPending, pendingApprovalResult, toPendingApproval } from '../tools/tool-approval';
import { withDbRetry } from './db-retry';
import { GraphInterrupted } from './graph-runner.service';
import { RunSuperseded } from './turn-lease.service';

/** the user-facing text of each way a run can fail (agents/shared/messages.ts), in the language of its message */
const FAILURE_TEXT: Record<string, keyof AgentTexts> = {
  RUN_TIMEOUT: 'runTimeout',
  CANCELLED: 'cancelled',
  BUDGET_EXCEEDED: 'budgetExceeded',
  SESSION_BUSY: 'sessionBusy',
  MODEL_UNAVAILABLE: 'modelUnavailable',
  INTERNAL_ERROR: 'internalError',
  RUN_ATTEMPTS_EXHAUSTED: 'attemptsExhausted',
  AGENT_NOT_REGISTERED: 'failed',
};

/**
 * Outcome recording: how a run ended — its ChatResult, trace, usage and the turn's messages in one statement of
 * the run store, a pause for an approval, a failure's user-facing text — and the result read back for those
 * who wait for it.
 */
@Injectable()
export class RunOutcomes {
  private readonly logger = new Logger(RunOutcomes.name);

  constructor(
    private readonly runs: RunStore,
    private readonly ledger: RunLedger,
    private readonly llm: LlmService,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    private readonly events: RunEventBus,
    private readonly ends: RunEnds,
  ) {}

  /** A sync repeat of an idempotent request: the first run's result once it has ended; SessionBusy past twice the run timeout. */
  async resultOf(runId: string): Promise<ChatResult> {
    try {
      return this.resultIn(await this.ends.awaitEnd(runId, { timeoutMs: this.config.runTimeoutMs * 2 }));
    } catch (err) {
      if (err instanceof RunEndNotSeen) throw new SessionBusyException(err.run.sessionId);
      throw err;
    }
  }

  /**
   * Ends an unfinished run as `failed` because its job used up its attempts (or crashed its workers every
   * time). Nothing happens to a run that has already ended.
   */
  async abandon(runId: string, message: string): Promise<void> {
    const run = await this.runs.get(runId).catch(() => null);
    if (!run || FINAL_STATUSES.includes(run.status)) return;
    const usage = PersistentUsageCollector.unwritten(await this.usageOf(run), run.attempts);
    const log = { run_id: run.id, session_id: run.sessionId, agent: run.agent };
    await this.end(run, Date.now(), usage, this.failure('RUN_ATTEMPTS_EXHAUSTED', `failed on every attempt: ${message}`, run), { log });
  }

  /**
   * Ends a run that was refused before it could run (the queue would not take it) as `failed` with `code`, through
   * the one end path: stored with its user-facing text, then `result` and `end` published, so joiners and waiters
   * wake at once.
   */
  async refuse(run: RunEntity, code: string, message: string): Promise<ChatResult> {
    const usage = PersistentUsageCollector.unwritten(await this.usageOf(run), run.attempts);
    const log = { run_id: run.id, session_id: run.sessionId, agent: run.agent };
    return this.end(run, Date.now(), usage, this.failure(code, message, run), { log });
  }

  /** What earlier attempts of the run recorded (nothing to read for a first attempt). */
  async usageOf(run: RunEntity): Promise<RunUsage> {
    const totals = { calls: run.llmCalls ?? 0, promptTokens: run.promptTokens ?? 0, completionTokens: run.completionTokens ?? 0 };
    if (run.attempts <= 1 && totals.calls === 0) return { totals, calls: [] };
    return { totals, calls: await this.ledger.modelCalls(run.id).catch(() => []) };
  }

  /** A tool call waits for an operator (TOOL_APPROVAL): `interrupted` until approve/reject re-queues the run. */
  async pause(
    run: RunEntity,
    started: number,
    usage: PersistentUsageCollector,
    { request }: ApprovalPending,
    log: Record<string, string>,
  ): Promise<ChatResult> {
    await usage.flushed(); // the attempt resumed after the decision adds to what this one counted
    const pending = toPendingApproval(request, usage.calls);
    const paused = await this.runs.pause(run.id, run.attempts, pending, { waiting_for: 'approval', tool: pending.tool });
    if (!paused) {
      await this.throwIfSuperseded(run);
      return this.storedResult(run.id);
    }
    this.logger.log({ msg: 'run waits for tool approval', ...log, tool: pending.tool, tool_call_id: pending.tool_call_id });
    const ms = Date.now() - started;
    const language = detectLanguage(run.input?.message, this.config.defaultLanguage);
    const result = pendingApprovalResult(run, pending, { ms, llmCalls: usage.totals.calls, model: this.llm.modelName }, language);
    this.events.publish(run.id, 'interrupt', result); // not an end: the run goes on after the decision
    return result;
  }

  /** A failed run's outcome; its text in the language of the run's message (`run`), else DEFAULT_LANGUAGE. */
  failure(code: string, message: string, run?: RunEntity): { status: RunEnd['status']; outcome: AgentOutcome } {
    const status = code === 'CANCELLED' ? ('cancelled' as const) : ('failed' as const);
    const error: RunError = { code, message: message.slice(0, 500) };
    const texts = agentTexts(detectLanguage(run?.input?.message, this.config.defaultLanguage));
    const response = texts[FAILURE_TEXT[code] ?? 'internalError'];
    return { status, outcome: { response, toolCalls: [], sources: [], error, metadata: {}, trace: {} } };
  }

  async end(
    run: RunEntity,
    started: number,
    usage: PersistentUsageCollector,
    { status, outcome }: { status: RunEnd['status']; outcome: AgentOutcome },
    ctx: { log: Record<string, string>; turn?: TurnContext; checkpoint?: FinalCheckpoint },
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
          ...(ctx.checkpoint ? { checkpoint: ctx.checkpoint } : {}),
        }),
      ),
    );
    if (!recorded) await this.throwIfSuperseded(run);
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

  /**
   * This attempt could not record its end or pause: if another attempt has started the run since (its worker was
   * cut off past its lease, the run taken over), it stops here — no `result` event, the other attempt's stands.
   */
  private async throwIfSuperseded(run: RunEntity): Promise<void> {
    const now = await this.runs.get(run.id).catch(() => null);
    if (!now || now.attempts === run.attempts) return;
    throw new RunSuperseded(run.id, run.attempts);
  }

  async storedResult(runId: string): Promise<ChatResult> {
    return this.resultIn(await this.runs.get(runId));
  }

  private resultIn(run: RunEntity): ChatResult {
    if (run.result) return run.result;
    // ended without a result (cancelled while queued): answer in the same shape
    return {
      response: agentTexts(detectLanguage(run.input?.message, this.config.defaultLanguage))[
        FAILURE_TEXT[run.error?.code ?? 'CANCELLED'] ?? FAILURE_TEXT.CANCELLED
      ],
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

export function interruptedEnd(err: GraphInterrupted): { status: 'interrupted'; outcome: AgentOutcome } {
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
