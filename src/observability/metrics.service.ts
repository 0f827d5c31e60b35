import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

import { clusterScrape } from './cluster-metrics';

export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

/** Prometheus metrics of this process (one registry per app instance, so tests can run several). */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly runs = new Counter({
    name: 'agent_runs_total',
    help: 'Finished runs',
    labelNames: ['agent', 'mode', 'status'],
    registers: [this.registry],
  });
  readonly runDuration = new Histogram({
    name: 'agent_run_duration_seconds',
    help: 'Run execution time',
    labelNames: ['agent'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });
  // --- model calls: one observation per call (MeteredChatOpenAI → RunObservation), cache hits excluded ---
  readonly llmCalls = new Counter({
    name: 'llm_calls_total',
    help: 'Chat model calls that reached the endpoint, by agent, graph node, model and status (ok, error)',
    labelNames: ['agent', 'node', 'model', 'status'],
    registers: [this.registry],
  });
  readonly llmTokens = new Counter({
    name: 'llm_tokens_total',
    help: 'Tokens reported by the model endpoint (kind: prompt, completion)',
    labelNames: ['agent', 'node', 'model', 'kind'],
    registers: [this.registry],
  });
  readonly llmDuration = new Histogram({
    name: 'llm_call_duration_seconds',
    help: 'Chat model call latency (rate-limit retries included)',
    labelNames: ['agent', 'node', 'model'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60],
    registers: [this.registry],
  });

  // --- runs: graph steps, queue ---
  readonly nodeDuration = new Histogram({
    name: 'agent_node_duration_seconds',
    help: 'Graph node execution time, by agent and node',
    labelNames: ['agent', 'node'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly runIterations = new Histogram({
    name: 'agent_run_iterations',
    help: 'Graph steps (node executions) per run',
    labelNames: ['agent'],
    buckets: [1, 2, 3, 5, 8, 13, 21, 34, 55, 100],
    registers: [this.registry],
  });
  readonly degradedAnswers = new Counter({
    name: 'agent_degraded_answers_total',
    help: 'Answers built from partial results after a model outage (metadata.degraded)',
    labelNames: ['agent'],
    registers: [this.registry],
  });
  readonly queueWait = new Histogram({
    name: 'agent_run_queue_wait_seconds',
    help: 'Time a queued run waited between acceptance (or its start_at) and its start',
    labelNames: ['agent'],
    buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });
  private queueDepthSource?: () => Promise<Record<QueueState, number>>;
  private readonly wholeCluster = clusterScrape(this.registry);

  /** durability: resumed (a run started again after a crash), handed_back, reconciled, exhausted */
  readonly runRecoveries = new Counter({
    name: 'agent_run_recoveries_total',
    help: 'Runs resumed, handed back, re-enqueued by the reconciler or ended after their attempts',
    labelNames: ['event'],
    registers: [this.registry],
  });

  // --- agents: tool executions (recorded by the one tool executor, src/agents/shared/tool-executor.ts) ---
  readonly toolExecutions = new Counter({
    name: 'agent_tool_executions_total',
    help: 'Tool executions by tool and status',
    labelNames: ['tool', 'status'],
    registers: [this.registry],
  });
  readonly toolDuration = new Histogram({
    name: 'agent_tool_duration_seconds',
    help: 'Tool execution time (retries included)',
    labelNames: ['tool'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  recordTool(tool: string, status: 'success' | 'error', ms: number): void {
    this.toolExecutions.inc({ tool, status });
    this.toolDuration.observe({ tool }, ms / 1000);
  }
  // --- end agents ---

  readonly llmCacheHits = new Counter({ name: 'llm_cache_hits_total', help: 'LLM cache hits', registers: [this.registry] });
  readonly llmCacheMisses = new Counter({ name: 'llm_cache_misses_total', help: 'LLM cache misses', registers: [this.registry] });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    const hits = this.llmCacheHits;
    const misses = this.llmCacheMisses;
    const depth = () => this.queueDepthSource?.();
    new Gauge({
      name: 'agent_run_queue_jobs',
      help: 'Runs queue jobs by state, read from BullMQ (or the inline queue) at scrape time',
      labelNames: ['state'],
      registers: [this.registry],
      aggregator: 'max', // every API process of a cluster reads the same queue
      async collect() {
        const counts = await depth()?.catch(() => undefined);
        if (!counts) return;
        for (const state of QUEUE_STATES) this.set({ state }, counts[state] ?? 0);
      },
    });
    new Gauge({
      name: 'llm_cache_hit_ratio',
      help: 'LLM cache hits / lookups since start',
      registers: [this.registry],
      aggregator: 'average',
      async collect() {
        const h = (await hits.get()).values[0]?.value ?? 0;
        const m = (await misses.get()).values[0]?.value ?? 0;
        this.set(h + m === 0 ? 0 : h / (h + m));
      },
    });
  }

  /** What `/metrics` answers: this process's metrics, or the whole cluster's (WEB_CONCURRENCY; cluster-metrics.ts). */
  scrape(): Promise<string> {
    return this.wholeCluster ? this.wholeCluster() : this.registry.metrics();
  }

  /** The runs queue reports its depth here (at scrape time). */
  watchQueue(source: () => Promise<Record<QueueState, number>>): void {
    this.queueDepthSource = source;
  }

  recordRun(r: { agent: string; mode: string; status: string; ms: number }): void {
    this.runs.inc({ agent: r.agent, mode: r.mode, status: r.status });
    this.runDuration.observe({ agent: r.agent }, r.ms / 1000);
  }
}
