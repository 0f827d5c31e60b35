import { randomUUID } from 'node:crypto';

import { Injectable, Logger } from '@nestjs/common';

import type { AgentDefinition, AgentOutcome, TurnContext } from '../agents/agent-definition';
import { AgentRegistry } from '../agents/agent-registry.service';
import { MODEL_UNAVAILABLE_TEXT } from '../agents/shared/outage';
import {
  MessageTooLargeException,
  SessionAgentMismatchException,
  SessionBusyException,
  UnknownAgentException,
} from '../common/domain.exception';
import { AppConfig } from '../config/app-config';
import type { RunEntity, RunError, RunMode } from '../database/entities';
import { LlmService } from '../llm/llm.service';
import { isModelUnavailable } from '../llm/model-errors';
import { USAGE_KEY, UsageCollector } from '../llm/usage-collector';
import { MetricsService } from '../observability/metrics.service';
import { ScopeValidator } from '../scope/scope-validator.service';
import type { ChatResult } from './chat-result';
import { type RunEnd, RunRecords } from './run-records.service';
import { SessionsService } from './sessions.service';

export interface TurnRequest {
  message: string;
  session_id?: string;
  agent?: string;
  contract_id?: string;
  metadata?: Record<string, unknown>;
  tenant_id?: string;
}

export interface ProgressEvent {
  run_id: string;
  node: string;
  step: number;
}

export interface TokenEvent {
  node: string;
  content: string;
}

export interface ExecuteOptions {
  signal?: AbortSignal;
  onProgress?: (e: ProgressEvent) => void;
  /** model tokens as they arrive (graph stream mode `messages`) */
  onToken?: (e: TokenEvent) => void;
}

const LEASE_GRACE_MS = 30_000;
const FAILURE_TEXT: Record<string, string> = {
  RUN_TIMEOUT: '처리 시간이 초과되었습니다. (The run took too long and was stopped.)',
  CANCELLED: '요청이 취소되었습니다. (The run was cancelled.)',
  SESSION_BUSY: '이전 요청을 처리하는 중입니다. 잠시 후 다시 시도해 주세요. (An earlier turn of this session is still running.)',
  MODEL_UNAVAILABLE: MODEL_UNAVAILABLE_TEXT,
  INTERNAL_ERROR: '요청을 처리하는 중 오류가 발생했습니다. (Something went wrong while handling the request.)',
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
    private readonly sessions: SessionsService,
    private readonly runs: RunRecords,
    private readonly llm: LlmService,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    private readonly scope: ScopeValidator,
  ) {}

  /** Forget a session: its messages, runs and checkpoints. A session in the middle of a turn is kept. */
  async deleteSession(id: string, tenantId?: string): Promise<void> {
    const session = await this.sessions.get(id, tenantId);
    if (session.activeRunId && session.leaseExpiresAt && session.leaseExpiresAt > new Date()) {
      throw new SessionBusyException(id);
    }
    await this.agents.deleteThread(id);
    await this.sessions.delete(id);
  }

  /** A sync turn: accept, then execute in the request. */
  async chat(req: TurnRequest): Promise<ChatResult> {
    const run = await this.accept(req, 'sync');
    return this.execute(run.id);
  }

  async accept(req: TurnRequest, mode: RunMode): Promise<RunEntity> {
    if (req.message.length > this.config.maxMessageChars) {
      throw new MessageTooLargeException(this.config.maxMessageChars, req.message.length);
    }
    const tenantId = req.tenant_id ?? 'default';
    let session = req.session_id ? await this.sessions.get(req.session_id, tenantId) : null;
    const agent = req.agent ?? session?.agent ?? this.config.defaultAgent;
    if (!this.agents.get(agent)) throw new UnknownAgentException(agent, this.agents.names());
    if (session && session.agent !== agent) throw new SessionAgentMismatchException(session.id, session.agent, agent);
    session ??= await this.sessions.create(agent, tenantId);
    return this.runs.create({
      id: randomUUID(),
      sessionId: session.id,
      tenantId,
      agent,
      mode,
      input: { message: req.message, contract_id: req.contract_id, metadata: req.metadata },
    });
  }

  /** Runs an accepted run to a final, recorded state. Safe to call twice: an ended run returns its stored result. */
  async execute(runId: string, opts: ExecuteOptions = {}): Promise<ChatResult> {
    const started = Date.now();
    const run = await this.runs.markRunning(runId);
    if (!run) return this.storedResult(runId);
    const agent = this.agents.get(run.agent);
    const turn: TurnContext = {
      runId: run.id,
      sessionId: run.sessionId,
      message: run.input.message,
      contractId: run.input.contract_id,
      metadata: run.input.metadata ?? {},
    };
    const timeout = AbortSignal.timeout(this.config.runTimeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    const usage = new UsageCollector();
    const log = { run_id: run.id, session_id: run.sessionId, agent: run.agent };

    const deadline = started + this.config.runTimeoutMs;
    const leased = await this.sessions.acquireLease(run.sessionId, run.id, this.config.runTimeoutMs + LEASE_GRACE_MS, deadline, signal);
    if (!leased) {
      const code = signal.aborted && !timeout.aborted ? 'CANCELLED' : 'SESSION_BUSY';
      return this.end(run, started, usage, this.failure(code, 'the session stayed busy with an earlier turn'), { log });
    }
    try {
      if (!agent) throw new Error(`agent ${run.agent} is no longer registered`);
      const refusal = await this.checkScope(agent, turn, { signal, usage });
      if (refusal) return await this.end(run, started, usage, { status: 'completed', outcome: refusal }, { log, turn });
      const values = await this.runGraph(agent, run, turn, { ...opts, signal }, usage);
      const outcome = agent.toOutcome(values, turn);
      return await this.end(run, started, usage, { status: outcome.error ? 'failed' : 'completed', outcome }, { log, turn });
    } catch (err) {
      const code = timeout.aborted
        ? 'RUN_TIMEOUT'
        : signal.aborted
          ? 'CANCELLED'
          : isModelUnavailable(err)
            ? 'MODEL_UNAVAILABLE'
            : 'INTERNAL_ERROR';
      if (code === 'INTERNAL_ERROR') this.logger.error({ msg: 'run failed', ...log, err: (err as Error).stack });
      return this.end(run, started, usage, this.failure(code, (err as Error).message), { log, turn });
    }
  }

  private async runGraph(
    agent: AgentDefinition,
    run: RunEntity,
    turn: TurnContext,
    opts: ExecuteOptions,
    usage: UsageCollector,
  ): Promise<Record<string, unknown>> {
    const configurable = { thread_id: run.sessionId, run_id: run.id, [USAGE_KEY]: usage };
    // a retried run (worker crash) resumes from its last checkpoint instead of starting the turn again
    const resume = run.attempts > 1 && (await agent.graph.getState({ configurable })).next.length > 0;
    const stream = await agent.graph.stream(resume ? null : agent.buildInput(turn), {
      configurable,
      signal: opts.signal,
      streamMode: opts.onToken ? ['updates', 'values', 'messages'] : ['updates', 'values'],
      durability: agent.durability ?? 'async',
      recursionLimit: 100,
      runName: `${agent.name}:${run.id}`,
      metadata: { run_id: run.id, session_id: run.sessionId },
    });
    let step = 0;
    let values: Record<string, unknown> | undefined;
    for await (const [mode, chunk] of stream as AsyncIterable<[string, Record<string, unknown>]>) {
      if (mode === 'values') {
        values = chunk;
        continue;
      }
      if (mode === 'messages') {
        const [message, meta] = chunk as unknown as [{ content?: unknown; getType?: () => string }, { langgraph_node?: string }];
        const text = typeof message?.content === 'string' ? message.content : '';
        if (text && message.getType?.() !== 'tool') opts.onToken?.({ node: meta?.langgraph_node ?? 'unknown', content: text });
        continue;
      }
      step += 1;
      opts.onProgress?.({ run_id: run.id, node: Object.keys(chunk)[0] ?? 'unknown', step });
    }
    // the last `values` chunk is the final state: no need to read the checkpoint back
    return values ?? ((await agent.graph.getState({ configurable })).values as Record<string, unknown>);
  }

  /** Out-of-scope messages get the agent's polite refusal without running the graph. */
  private async checkScope(
    agent: AgentDefinition,
    turn: TurnContext,
    { signal, usage }: { signal: AbortSignal; usage: UsageCollector },
  ): Promise<AgentOutcome | null> {
    if (!agent.scope) return null;
    const verdict = await this.scope.validate(turn.message, agent.scope, { signal, configurable: { [USAGE_KEY]: usage } });
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
    usage: UsageCollector,
    { status, outcome }: { status: RunEnd['status']; outcome: AgentOutcome },
    ctx: { log: Record<string, string>; turn?: TurnContext },
  ): Promise<ChatResult> {
    const totals = usage.totals;
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
    const recorded = await this.runs.finish(run, {
      status,
      result,
      error: outcome.error,
      trace: { ...outcome.trace, model_calls: usage.calls },
      usage: totals,
      messages: ctx.turn ? { user: ctx.turn.message, assistant: outcome.response } : null,
      summary: outcome.summary || null,
    });
    this.sessions.notifyReleased(run.sessionId);
    if (recorded) {
      this.metrics.recordRun({
        agent: run.agent,
        mode: run.mode,
        status,
        ms: result.execution_time_ms,
        llmCalls: totals.calls,
        promptTokens: totals.promptTokens,
        completionTokens: totals.completionTokens,
      });
    }
    this.logger.log({ msg: 'run ended', ...ctx.log, status, ms: result.execution_time_ms, llm_calls: totals.calls });
    return recorded ? result : this.storedResult(run.id);
  }

  private async storedResult(runId: string): Promise<ChatResult> {
    const run = await this.runs.get(runId);
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
