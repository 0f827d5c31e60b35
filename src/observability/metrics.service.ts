import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

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
  readonly llmCalls = new Counter({
    name: 'llm_calls_total',
    help: 'Chat model calls',
    labelNames: ['agent'],
    registers: [this.registry],
  });
  readonly llmTokens = new Counter({
    name: 'llm_tokens_total',
    help: 'Tokens reported by the model endpoint',
    labelNames: ['agent', 'kind'],
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
    new Gauge({
      name: 'llm_cache_hit_ratio',
      help: 'LLM cache hits / lookups since start',
      registers: [this.registry],
      async collect() {
        const h = (await hits.get()).values[0]?.value ?? 0;
        const m = (await misses.get()).values[0]?.value ?? 0;
        this.set(h + m === 0 ? 0 : h / (h + m));
      },
    });
  }

  recordRun(r: {
    agent: string;
    mode: string;
    status: string;
    ms: number;
    llmCalls: number;
    promptTokens: number;
    completionTokens: number;
  }): void {
    this.runs.inc({ agent: r.agent, mode: r.mode, status: r.status });
    this.runDuration.observe({ agent: r.agent }, r.ms / 1000);
    if (r.llmCalls) this.llmCalls.inc({ agent: r.agent }, r.llmCalls);
    if (r.promptTokens) this.llmTokens.inc({ agent: r.agent, kind: 'prompt' }, r.promptTokens);
    if (r.completionTokens) this.llmTokens.inc({ agent: r.agent, kind: 'completion' }, r.completionTokens);
  }
}
