import { Logger } from '@nestjs/common';
import type { Span } from '@opentelemetry/api';

import { debugLogging, truncateForLog } from './logger';
import type { MetricsService } from './metrics.service';
import { contextOf, endSpan, startSpan } from './tracing';

/** One graph step as the trace endpoint reports it. */
export interface NodeTiming {
  node: string;
  step: number;
  /** from the end of the previous step (or the graph's start) to this node's update */
  ms: number;
}

export interface ModelCallObservation {
  node: string;
  model: string;
  ms: number;
  promptTokens: number;
  completionTokens: number;
  cached: boolean;
  error?: string;
  /** built only when debug logging is on */
  prompt?: () => string;
  output?: () => string;
}

export interface ToolCallObservation {
  tool: string;
  node: string;
  ms: number;
  ok: boolean;
  error?: string;
  /** built only when debug logging is on */
  output?: () => string;
}

const logger = new Logger('Run');
const now = () => performance.timeOrigin + performance.now();

/**
 * What one run's execution reports while it runs: per-node durations (metrics and the trace's
 * `node_timings`), model calls and tool calls (metrics, debug logs, spans). Spans are built from the timings
 * after the fact — a node span opens when its first call is seen (at the end of the previous step) and
 * closes at its update — so nothing hooks into LangGraph's callbacks and, with tracing off, each report is
 * a few additions. Each update's nodes are timed from the previous update.
 */
export class RunObservation {
  readonly nodeTimings: NodeTiming[] = [];
  private stepStart = now();
  private readonly openNodes = new Map<string, Span>();

  constructor(
    readonly agent: string,
    private readonly metrics: MetricsService,
    readonly span: Span | undefined,
  ) {}

  /** The run holds its session and starts: a queued run waited from acceptance (or its `start_at`) until now. */
  started(run: { mode: string; createdAt: Date; startAt?: string }): void {
    if (run.mode !== 'async') return;
    const from = Math.max(run.createdAt.getTime(), run.startAt ? Date.parse(run.startAt) || 0 : 0);
    this.metrics.queueWait.observe({ agent: this.agent }, Math.max(0, Date.now() - from) / 1000);
  }

  /** The graph starts its first step now (lease and scope check are behind). */
  graphStarted(): void {
    this.stepStart = now();
  }

  /** An update arrived: its nodes' step is over (nodes of one update share the step's start). */
  nodesEnded(nodes: string[]): void {
    const end = now();
    const ms = end - this.stepStart;
    for (const node of nodes) {
      this.nodeTimings.push({ node, step: this.nodeTimings.length + 1, ms: Math.round(ms) });
      this.metrics.nodeDuration.observe({ agent: this.agent, node }, ms / 1000);
      if (!this.span) continue;
      const span = this.openNodes.get(node) ?? this.nodeSpan(node);
      this.openNodes.delete(node);
      endSpan(span, undefined, end);
    }
    this.stepStart = end;
  }

  modelCall(c: ModelCallObservation): void {
    if (!c.cached) {
      const labels = { agent: this.agent, node: c.node, model: c.model };
      this.metrics.llmCalls.inc({ ...labels, status: c.error ? 'error' : 'ok' });
      this.metrics.llmDuration.observe(labels, c.ms / 1000);
      if (c.promptTokens) this.metrics.llmTokens.inc({ ...labels, kind: 'prompt' }, c.promptTokens);
      if (c.completionTokens) this.metrics.llmTokens.inc({ ...labels, kind: 'completion' }, c.completionTokens);
    }
    if (debugLogging()) {
      logger.debug({
        msg: 'model call',
        node: c.node,
        model: c.model,
        ms: c.ms,
        prompt_tokens: c.promptTokens,
        completion_tokens: c.completionTokens,
        cached: c.cached,
        error: c.error,
        prompt: c.prompt && truncateForLog(c.prompt()),
        output: c.output && truncateForLog(c.output()),
      });
    }
    if (!this.span) return;
    // GenAI semantic conventions (gen_ai.*)
    const end = now();
    const span = startSpan(
      `chat ${c.model}`,
      {
        'gen_ai.operation.name': 'chat',
        'gen_ai.system': 'openai',
        'gen_ai.request.model': c.model,
        'gen_ai.usage.input_tokens': c.promptTokens,
        'gen_ai.usage.output_tokens': c.completionTokens,
        'langgraph.node': c.node,
        'llm.cache_hit': c.cached,
      },
      { parent: this.parentOf(c.node), startTime: end - c.ms },
    );
    endSpan(span, c.error, end);
  }

  toolCall(c: ToolCallObservation): void {
    if (debugLogging()) {
      logger.debug({
        msg: 'tool call',
        node: c.node,
        tool: c.tool,
        ms: Math.round(c.ms),
        ok: c.ok,
        output: c.output && truncateForLog(c.output()),
      });
    }
    if (!this.span) return;
    const end = now();
    const span = startSpan(
      `execute_tool ${c.tool}`,
      { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': c.tool, 'langgraph.node': c.node },
      { parent: this.parentOf(c.node), startTime: end - c.ms },
    );
    endSpan(span, c.ok ? undefined : (c.error ?? 'tool failed'), end);
  }

  /** The run ended (recorded): iterations, degraded answers; the node spans still open end with the run. */
  ended(metadata: Record<string, unknown> | undefined): void {
    this.metrics.runIterations.observe({ agent: this.agent }, this.nodeTimings.length);
    if (metadata?.degraded === true) this.metrics.degradedAnswers.inc({ agent: this.agent });
    for (const span of this.openNodes.values()) endSpan(span);
    this.openNodes.clear();
  }

  /** The context a model or tool call of `node` belongs under: the node's span, opened at the step's start. */
  private parentOf(node: string) {
    let span = this.openNodes.get(node);
    if (!span) {
      span = this.nodeSpan(node);
      if (span) this.openNodes.set(node, span);
    }
    return contextOf(span);
  }

  private nodeSpan(node: string): Span | undefined {
    return startSpan(
      `node ${node}`,
      { 'langgraph.node': node, 'gen_ai.agent.name': this.agent },
      { parent: contextOf(this.span), startTime: this.stepStart },
    );
  }
}
