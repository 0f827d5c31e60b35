import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';

import { z } from 'zod';

import type { BudgetLimits } from '../core/run-types';
import { DEFAULT_SUB_AGENTS } from './defaults';

/**
 * Every setting of the service, read once from the environment and validated.
 * Nothing else in `src/` reads `process.env`.
 */
const bool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .optional()
    .transform((v) => (v === undefined ? def : ['true', '1', 'yes'].includes(v)));
const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v && v.trim() !== '' ? v.trim() : undefined));

/** WEB_CONCURRENCY: a positive integer, or `auto` for one per core; unset or blank → 1 */
const processCount = z
  .string()
  .trim()
  .regex(/^(auto|[1-9]\d*|)$/, 'a positive integer or "auto"')
  .optional()
  .transform((v) => (!v ? 1 : v === 'auto' ? availableParallelism() : Number(v)));

const schema = z.object({
  NODE_ENV: z.string().default('development'),
  PORT: int(3000),
  HOST: z.string().default('0.0.0.0'),
  /** API processes `node dist/main.js` starts on the one port (node:cluster); more than 1 needs DATABASE_URL and REDIS_URL */
  WEB_CONCURRENCY: processCount,
  LOG_LEVEL: z.enum(['error', 'warn', 'log', 'debug', 'verbose']).default('log'),
  /** json: one JSON object a line (default); pretty (or the older `text`): coloured lines for a terminal */
  LOG_FORMAT: z
    .enum(['json', 'pretty', 'text'])
    .default('json')
    .transform((v) => (v === 'text' ? 'pretty' : v)),
  // --- observability: OpenTelemetry traces (off unless an OTLP endpoint is set) ---
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString,
  OTEL_SERVICE_NAME: z.string().default('agent-orchestrator'),
  // --- end observability ---
  DATABASE_URL: optionalString,
  DATA_DIR: z.string().default('./data'),
  DB_POOL_SIZE: int(10, 1),
  /** named prepared statements (PreparingClient); false behind a PgBouncer in transaction mode before 1.21 */
  DB_PREPARED_STATEMENTS: bool(true),
  /** embedding hosts may run the shipped migrations themselves (`agent-orchestrator-migrate`) */
  DB_MIGRATIONS_RUN: bool(true),
  REDIS_URL: optionalString,
  QUEUE_PREFIX: z.string().default('agents'),
  RUN_WORKER: bool(true),
  /** per-phase timings of each request in its Server-Timing header (`npm run bench -- --breakdown`) */
  PHASE_TIMINGS: bool(false),
  WORKER_CONCURRENCY: int(8, 1),
  LOCAL_RUN_CONCURRENCY: int(32, 0),
  RUN_TIMEOUT_MS: int(120_000, 100),
  RUN_LOCK_MS: int(5_000, 500),
  RUN_STALLED_CHECK_MS: int(2_500, 200),
  MAX_MESSAGE_CHARS: int(32_000, 1),
  MAX_BODY_BYTES: int(1_048_576, 1024),
  MAX_CONTRACT_CHARS: int(500_000, 100),
  DEFAULT_AGENT: z.string().default('react'),
  /** the built-in agents this process registers (comma-separated, `none` for none); unset → all */
  BUILTIN_AGENTS: optionalString,
  ASSISTANT_MAX_MESSAGES: int(10, 2),
  SUPERVISOR_MAX_ROUTINGS: int(5, 1),
  PLAN_EXECUTE_MAX_REPLANS: int(2, 0),
  PLAN_EXECUTE_STEP_TIMEOUT_MS: int(20_000, 100),
  SUPERVISOR_AGENT_MAX_ITERATIONS: int(10, 1),
  SUPERVISOR_AGENTS: optionalString,
  ASSISTANT_KEEP_RECENT: int(5, 1),
  ASSISTANT_MAX_SUMMARIES: int(3, 1),
  LLM_BASE_URL: optionalString,
  LLM_API_KEY: optionalString,
  LLM_MODEL: optionalString,
  LLM_TOOL_CALLING: z.enum(['native', 'prompt', 'auto']).default('auto'),
  /** per agent, e.g. "supervisor:prompt,react:native" */
  LLM_TOOL_CALLING_AGENTS: optionalString,
  LLM_TIMEOUT_MS: int(60_000, 100),
  LLM_MAX_RETRIES: z.coerce.number().int().min(0).max(3).default(3),
  LLM_TEMPERATURE: z.coerce.number().min(0).max(2).default(0),
  LLM_MAX_TOKENS: z.coerce.number().int().positive().optional(),
  // --- llm (model layer): JSON mode, circuit breaker ---
  LLM_JSON_MODE: z.enum(['auto', 'json_schema', 'json_object', 'off']).default('auto'),
  LLM_JSON_RETRIES: z.coerce.number().int().min(0).max(3).default(1),
  LLM_BREAKER_FAILURES: int(5, 1),
  LLM_BREAKER_WINDOW_MS: int(60_000, 100),
  LLM_BREAKER_COOLDOWN_MS: int(30_000, 10),
  // --- end llm ---
  // --- budgets (per-run limits; 0 = unlimited; wall time is RUN_TIMEOUT_MS) ---
  RUN_MAX_MODEL_CALLS: int(50),
  RUN_MAX_MODEL_TOKENS: int(200_000),
  RUN_MAX_TOOL_CALLS: int(50),
  // --- end budgets ---
  // --- agents: iteration limits per agent (defaults from the seeds; MAX_ITERATIONS = deprecated react fallback) ---
  MAX_ITERATIONS: z.coerce.number().int().min(1).optional(),
  REACT_MAX_ITERATIONS: z.coerce.number().int().min(1).optional(),
  ASSISTANT_MAX_ITERATIONS: int(10, 1),
  CONTRACT_QA_MAX_ITERATIONS: int(5, 1),
  // --- end agents ---
  KNOWLEDGE_BACKEND: z.enum(['postgres', 'opensearch']).default('postgres'),
  OPENSEARCH_URL: z.string().default('http://127.0.0.1:9200'),
  OPENSEARCH_INDEX: z.string().default('agents-documents'),
  EMBEDDINGS_BASE_URL: optionalString,
  EMBEDDINGS_API_KEY: optionalString,
  EMBEDDINGS_MODEL: optionalString,
  LLM_CACHE: bool(true),
  LLM_CACHE_TTL_SECONDS: int(3600, 1),
  LLM_CACHE_MAX_ENTRIES: int(5000, 1),
  // tenancy: keys, public endpoints, rate limits, CORS, input limits
  API_KEYS: optionalString,
  METRICS_PUBLIC: bool(false),
  DOCS_PUBLIC: bool(false),
  RATE_LIMIT_PER_MINUTE: int(600, 0),
  CORS_ORIGINS: optionalString,
  MAX_JSON_DEPTH: int(32, 2),
  TOOLS_NETWORK: bool(true),
  TOOLS_ALLOWED_PRIVATE_HOSTS: optionalString,
  TOOLS_TIMEOUT_MS: int(10_000, 100),
  WIKIPEDIA_BASE_URL: optionalString,
  WIKIPEDIA_LANGUAGE: z.string().default('ko'),
  OPENWEATHER_API_KEY: optionalString,
  OPENWEATHER_BASE_URL: optionalString,
  TAVILY_API_KEY: optionalString,
  TAVILY_BASE_URL: optionalString,
  READ_FILE_ROOT: optionalString,
  PYTHON_REPL_ENABLED: bool(false),
  PYTHON_REPL_TIMEOUT_MS: int(10_000, 100),
  // injection: tools that pause the run for an operator's approval (comma-separated tool names)
  TOOL_APPROVAL: optionalString,
  // --- durability (runs, workers, recovery) ---
  RUN_MAX_ATTEMPTS: int(3, 1),
  RUN_RECONCILE_MS: int(5_000, 100),
  RUN_SHUTDOWN_GRACE_MS: int(10_000, 0),
  RUN_CHECKPOINTS: z.enum(['step', 'agent']).default('step'),
  DB_WRITE_RETRIES: int(8, 0),
  // --- end durability ---
  // --- events (run event bus) ---
  RUN_EVENTS_WINDOW: int(1000, 1),
  RUN_EVENTS_TTL_S: int(3600, 1),
  // --- end events ---
  // --- console (the web page at /console): where the built page is; default the `console-ui` folder beside the compiled app ---
  CONSOLE_DIR: optionalString,
  /** custom graphs: a LangGraph CLI `langgraph.json` (default ./langgraph.json when it exists) */
  LANGGRAPH_CONFIG: optionalString,
  /** LangGraph API run webhooks: host names (exact) allowed although they resolve to private or loopback addresses */
  WEBHOOK_ALLOWED_HOSTS: optionalString,
});

export interface ToolSettings {
  network: boolean;
  /** host names allowed although they resolve to private addresses (self-hosted services) */
  allowedPrivateHosts: string[];
  timeoutMs: number;
  wikipedia: { baseUrl?: string; language: string };
  weather: { apiKey?: string; baseUrl?: string };
  webSearch: { apiKey?: string; baseUrl?: string };
  readFileRoot?: string;
  pythonRepl: { enabled: boolean; timeoutMs: number };
}

export type ToolCallingSetting = 'native' | 'prompt' | 'auto';

export type LlmSettings = {
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  toolCalling: ToolCallingSetting;
  /** overrides of `toolCalling` by agent name */
  toolCallingByAgent: Record<string, ToolCallingSetting>;
  /** how JSON decisions ask for JSON (`auto`: json_schema → json_object → prose, as the endpoint accepts) */
  jsonMode: 'auto' | 'json_schema' | 'json_object' | 'off';
  /** re-asks of an unparseable JSON decision */
  jsonRetries: number;
  /** per endpoint: open after `failures` consecutive failures within `windowMs`, for `cooldownMs` */
  breaker: { failures: number; windowMs: number; cooldownMs: number };
  timeoutMs: number;
  maxRetries: number;
  temperature: number;
  maxTokens?: number;
  cache: { enabled: boolean; ttlSeconds: number; maxEntries: number };
};

const SubAgents = z
  .array(z.object({ name: z.string().regex(/^[A-Za-z_][\w-]*$/), description: z.string(), role: z.string(), tools: z.array(z.string()) }))
  .min(1);

function parseModes(spec: string | undefined): Record<string, ToolCallingSetting> {
  const out: Record<string, ToolCallingSetting> = {};
  for (const part of (spec ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [agent, mode] = part.split(':').map((x) => x.trim());
    if (!agent || (mode !== 'native' && mode !== 'prompt' && mode !== 'auto')) {
      throw new Error(`Invalid configuration: LLM_TOOL_CALLING_AGENTS: "${part}" is not agent:native|prompt|auto`);
    }
    out[agent] = mode;
  }
  return out;
}

/** tenancy: `tenant:key,tenant:key`; tenant ids are 1–64 chars of [A-Za-z0-9._-], keys at least 16 chars. */
function parseApiKeys(spec: string | undefined): Array<{ tenant: string; key: string }> {
  return (spec ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((pair, i) => {
      const at = pair.indexOf(':');
      const tenant = pair.slice(0, at);
      const key = pair.slice(at + 1);
      if (at < 1 || !/^[A-Za-z0-9._-]{1,64}$/.test(tenant) || key.length < 16) {
        // never echo the pair: it holds a secret
        throw new Error(`Invalid configuration: API_KEYS entry ${i + 1} is not tenant:key (tenant [A-Za-z0-9._-], key ≥ 16 chars)`);
      }
      return { tenant, key };
    });
}

function parseSubAgents(json: string) {
  try {
    return SubAgents.parse(JSON.parse(json));
  } catch (err) {
    throw new Error(`Invalid configuration: SUPERVISOR_AGENTS: ${(err as Error).message}`);
  }
}

/** LANGGRAPH_CONFIG as given (relative to the working directory), else ./langgraph.json when that file exists. */
function langgraphConfigPath(setting: string | undefined): string | undefined {
  if (setting) return path.resolve(setting);
  const fallback = path.resolve('langgraph.json');
  return existsSync(fallback) ? fallback : undefined;
}

export class AppConfig {
  readonly env: string;
  readonly port: number;
  readonly host: string;
  /** WEB_CONCURRENCY: API processes sharing the port (cluster.ts: one unless Postgres and Redis are external) */
  readonly webConcurrency: number;
  readonly logLevel: z.infer<typeof schema>['LOG_LEVEL'];
  readonly logFormat: 'json' | 'pretty';
  /** OpenTelemetry: spans exported over OTLP/HTTP to `endpoint` when set; tracing is off otherwise */
  readonly tracing: { endpoint?: string; serviceName: string };
  /** unset → embedded Postgres (PGlite) in `dataDir` */
  readonly databaseUrl?: string;
  readonly dataDir: string;
  readonly dbPoolSize: number;
  readonly dbPreparedStatements: boolean;
  /** run the shipped migrations at start-up (default); off when the host runs them itself */
  readonly migrationsRun: boolean;
  /** unset → runs execute in-process */
  readonly redisUrl?: string;
  readonly queuePrefix: string;
  /** whether this process consumes runs (the API's in-process worker; `worker.ts` always does) */
  readonly runWorker: boolean;
  /** PHASE_TIMINGS: each response carries its phases in `Server-Timing` (benchmarks) */
  readonly phaseTimings: boolean;
  readonly workerConcurrency: number;
  /** LangGraph `wait`/`stream` runs executed at once by the accepting process (LocalRuns); 0 = always queued */
  readonly localRunConcurrency: number;
  readonly runTimeoutMs: number;
  /** BullMQ job lock: a worker that stops renewing it (crash) loses the job to another after this long */
  readonly runLockMs: number;
  readonly runStalledCheckMs: number;
  /** durability: crash recovery, shutdown, reconciliation (see README "Durability") */
  readonly durability: {
    /** a run is started at most this often (crashes included), then ends `failed` */
    maxAttempts: number;
    /** how often a worker re-enqueues accepted runs that have no job (Redis flushed or restarted) */
    reconcileMs: number;
    /** SIGTERM: running turns get this long to finish, then are handed back at their last checkpoint */
    shutdownGraceMs: number;
    /** `step`: queued runs checkpoint after every step (resume mid-turn); `agent`: each agent's own choice */
    checkpoints: 'step' | 'agent';
    /** a failed database write is retried this many times with backoff (connection resets, restarts) */
    dbWriteRetries: number;
  };
  /** the run event bus: events kept per run for replay (`Last-Event-ID`), and how long after the run ended */
  readonly runEvents: { window: number; ttlS: number };
  /** per-run budgets (0 = unlimited): model calls reaching the endpoint, model tokens, tool calls */
  readonly runBudget: BudgetLimits;
  /** react's limit (REACT_MAX_ITERATIONS, else the deprecated MAX_ITERATIONS) — kept for callers of the old name */
  readonly maxIterations: number;
  /** model iterations per turn, per agent (seeds: react 5, contract-qa 5; the assistant's seed sets none → 10) */
  readonly iterationLimits: { react: number; assistant: number; contractQa: number };
  readonly maxMessageChars: number;
  readonly maxBodyBytes: number;
  readonly maxContractChars: number;
  readonly defaultAgent: string;
  /** BUILTIN_AGENTS: the built-in agents registered; undefined → all of them */
  readonly builtInAgents?: ReadonlySet<string>;
  /** the assistant agent's memory limits (seed 001: 10 / 5 / 3) */
  /** seed 003: max 5 routings, 10 iterations per sub-agent; agents replaceable with SUPERVISOR_AGENTS (JSON) */
  readonly supervisor: {
    maxRoutings: number;
    agentMaxIterations: number;
    agents: Array<{ name: string; description: string; role: string; tools: string[] }>;
  };
  /** seed 004: re-plans per turn (default 2) and each step's time limit */
  readonly planExecute: { maxReplans: number; stepTimeoutMs: number };
  readonly assistantMemory: { maxMessages: number; keepRecent: number; maxSummaries: number };
  readonly llm: LlmSettings;
  /** tenancy: `API_KEYS` as tenant:key pairs, what stays open with keys, per-key rate limit (0 = off), CORS, input depth */
  readonly security: {
    apiKeys: Array<{ tenant: string; key: string }>;
    metricsPublic: boolean;
    docsPublic: boolean;
    rateLimitPerMinute: number;
    corsOrigins: string[];
    maxJsonDepth: number;
  };
  readonly tools: ToolSettings;
  readonly knowledge: { backend: 'postgres' | 'opensearch'; opensearchUrl: string; opensearchIndex: string };
  /** OpenAI-compatible embeddings for vector search; unset → full-text + trigram only */
  readonly embeddings?: { baseUrl?: string; apiKey?: string; model: string };
  /** injection: TOOL_APPROVAL — calls of these tools wait for POST /v1/jobs/{id}/approve | reject */
  readonly toolApproval: ReadonlySet<string>;
  /** custom graphs: the absolute path of the `langgraph.json` whose graphs are registered as agents, if any */
  readonly langgraphConfig?: string;
  /** WEBHOOK_ALLOWED_HOSTS: webhook hosts allowed although private (run webhooks are refused on private networks) */
  readonly webhookAllowedHosts: string[];
  /** the built web console (index.html, app.js, app.css) served at /console */
  readonly consoleDir: string;

  constructor(env: Record<string, string | undefined>) {
    const parsed = schema.safeParse(env);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      throw new Error(`Invalid configuration: ${problems}`);
    }
    const e = parsed.data;
    this.env = e.NODE_ENV;
    this.port = e.PORT;
    this.host = e.HOST;
    this.webConcurrency = e.WEB_CONCURRENCY;
    this.logLevel = e.LOG_LEVEL;
    this.logFormat = e.LOG_FORMAT;
    this.tracing = { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: e.OTEL_SERVICE_NAME };
    this.databaseUrl = e.DATABASE_URL;
    this.dataDir = e.DATA_DIR;
    this.dbPoolSize = e.DB_POOL_SIZE;
    this.dbPreparedStatements = e.DB_PREPARED_STATEMENTS;
    this.migrationsRun = e.DB_MIGRATIONS_RUN;
    this.redisUrl = e.REDIS_URL;
    this.queuePrefix = e.QUEUE_PREFIX;
    this.runWorker = e.RUN_WORKER;
    this.phaseTimings = e.PHASE_TIMINGS;
    this.workerConcurrency = e.WORKER_CONCURRENCY;
    this.localRunConcurrency = e.LOCAL_RUN_CONCURRENCY;
    this.runTimeoutMs = e.RUN_TIMEOUT_MS;
    this.runLockMs = e.RUN_LOCK_MS;
    this.runStalledCheckMs = e.RUN_STALLED_CHECK_MS;
    this.durability = {
      maxAttempts: e.RUN_MAX_ATTEMPTS,
      reconcileMs: e.RUN_RECONCILE_MS,
      shutdownGraceMs: e.RUN_SHUTDOWN_GRACE_MS,
      checkpoints: e.RUN_CHECKPOINTS,
      dbWriteRetries: e.DB_WRITE_RETRIES,
    };
    this.runEvents = { window: e.RUN_EVENTS_WINDOW, ttlS: e.RUN_EVENTS_TTL_S };
    // `npm run build` writes the page to dist/console-ui, beside dist/config where this file runs from
    this.consoleDir = path.resolve(e.CONSOLE_DIR ?? path.join(__dirname, '..', 'console-ui'));
    this.runBudget = { modelCalls: e.RUN_MAX_MODEL_CALLS, modelTokens: e.RUN_MAX_MODEL_TOKENS, toolCalls: e.RUN_MAX_TOOL_CALLS };
    this.iterationLimits = {
      react: e.REACT_MAX_ITERATIONS ?? e.MAX_ITERATIONS ?? 5,
      assistant: e.ASSISTANT_MAX_ITERATIONS,
      contractQa: e.CONTRACT_QA_MAX_ITERATIONS,
    };
    this.maxIterations = this.iterationLimits.react;
    this.maxMessageChars = e.MAX_MESSAGE_CHARS;
    this.maxBodyBytes = e.MAX_BODY_BYTES;
    this.maxContractChars = e.MAX_CONTRACT_CHARS;
    this.defaultAgent = e.DEFAULT_AGENT;
    if (e.BUILTIN_AGENTS) {
      this.builtInAgents = new Set(
        e.BUILTIN_AGENTS.split(',')
          .map((a) => a.trim())
          .filter((a) => a && a !== 'none'),
      );
    }
    this.planExecute = { maxReplans: e.PLAN_EXECUTE_MAX_REPLANS, stepTimeoutMs: e.PLAN_EXECUTE_STEP_TIMEOUT_MS };
    this.supervisor = {
      maxRoutings: e.SUPERVISOR_MAX_ROUTINGS,
      agentMaxIterations: e.SUPERVISOR_AGENT_MAX_ITERATIONS,
      agents: e.SUPERVISOR_AGENTS ? parseSubAgents(e.SUPERVISOR_AGENTS) : DEFAULT_SUB_AGENTS,
    };
    this.assistantMemory = {
      maxMessages: e.ASSISTANT_MAX_MESSAGES,
      keepRecent: Math.min(e.ASSISTANT_KEEP_RECENT, e.ASSISTANT_MAX_MESSAGES - 1),
      maxSummaries: e.ASSISTANT_MAX_SUMMARIES,
    };
    this.llm = {
      baseUrl: e.LLM_BASE_URL,
      apiKey: e.LLM_API_KEY,
      model: e.LLM_MODEL,
      toolCalling: e.LLM_TOOL_CALLING,
      toolCallingByAgent: parseModes(e.LLM_TOOL_CALLING_AGENTS),
      timeoutMs: e.LLM_TIMEOUT_MS,
      maxRetries: e.LLM_MAX_RETRIES,
      temperature: e.LLM_TEMPERATURE,
      maxTokens: e.LLM_MAX_TOKENS,
      cache: { enabled: e.LLM_CACHE, ttlSeconds: e.LLM_CACHE_TTL_SECONDS, maxEntries: e.LLM_CACHE_MAX_ENTRIES },
      jsonMode: e.LLM_JSON_MODE,
      jsonRetries: e.LLM_JSON_RETRIES,
      breaker: { failures: e.LLM_BREAKER_FAILURES, windowMs: e.LLM_BREAKER_WINDOW_MS, cooldownMs: e.LLM_BREAKER_COOLDOWN_MS },
    };
    this.security = {
      apiKeys: parseApiKeys(e.API_KEYS),
      metricsPublic: e.METRICS_PUBLIC,
      docsPublic: e.DOCS_PUBLIC,
      rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
      corsOrigins: (e.CORS_ORIGINS ?? '')
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
      maxJsonDepth: e.MAX_JSON_DEPTH,
    };
    this.knowledge = { backend: e.KNOWLEDGE_BACKEND, opensearchUrl: e.OPENSEARCH_URL, opensearchIndex: e.OPENSEARCH_INDEX };
    if (e.EMBEDDINGS_BASE_URL || (e.EMBEDDINGS_API_KEY && e.EMBEDDINGS_MODEL)) {
      this.embeddings = {
        baseUrl: e.EMBEDDINGS_BASE_URL,
        apiKey: e.EMBEDDINGS_API_KEY,
        model: e.EMBEDDINGS_MODEL ?? 'text-embedding-3-small',
      };
    }
    this.tools = {
      network: e.TOOLS_NETWORK,
      allowedPrivateHosts: (e.TOOLS_ALLOWED_PRIVATE_HOSTS ?? '')
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean),
      timeoutMs: e.TOOLS_TIMEOUT_MS,
      wikipedia: { baseUrl: e.WIKIPEDIA_BASE_URL, language: e.WIKIPEDIA_LANGUAGE },
      weather: { apiKey: e.OPENWEATHER_API_KEY, baseUrl: e.OPENWEATHER_BASE_URL },
      webSearch: { apiKey: e.TAVILY_API_KEY, baseUrl: e.TAVILY_BASE_URL },
      readFileRoot: e.READ_FILE_ROOT,
      pythonRepl: { enabled: e.PYTHON_REPL_ENABLED, timeoutMs: e.PYTHON_REPL_TIMEOUT_MS },
    };
    // injection
    this.toolApproval = new Set(
      (e.TOOL_APPROVAL ?? '')
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    );
    this.langgraphConfig = langgraphConfigPath(e.LANGGRAPH_CONFIG);
    this.webhookAllowedHosts = (e.WEBHOOK_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean);
  }

  /** A model is configured when a base URL or a model name is given (OpenAI itself needs only a key + model). */
  get modelConfigured(): boolean {
    return Boolean(this.llm.baseUrl || (this.llm.apiKey && this.llm.model));
  }
}
