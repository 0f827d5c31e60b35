import '../settings/all-settings'; // the settings slices AppConfig is built from

import type { StructuredToolInterface } from '@langchain/core/tools';
import type { DataSource } from 'typeorm';

import { AppConfig } from '../config/app-config';
import type { Env } from '../config/config-source';
import type { ToolCallingSetting } from '../llm/llm.settings';
import type { HostAgent } from './host-extensions';

/**
 * Where the service keeps its tables: a connection string, the host's TypeORM data source, or embedded PGlite.
 * A host data source is only read for its connection settings: the service opens its own pool on that database
 * as the named data source `ORCHESTRATOR_DATA_SOURCE`, so its entities, migrations and pool size stay its own.
 */
export type DatabaseOption = { url: string } | { dataSource: DataSource } | { embedded: { dataDir?: string } };

/** `AgentOrchestratorModule` settings; each maps onto a setting of the standalone service (README "Configuration"). */
export interface AgentOrchestratorOptions {
  /** default: embedded Postgres in `./data` */
  database?: DatabaseOption;
  /** a Redis URL for BullMQ runs (needs `queue: 'redis'` with `forRootAsync`); unset → runs execute in-process */
  redis?: string;
  /** any OpenAI-compatible endpoint; unset → no model (rule paths, extractive answers) */
  model?: { baseUrl?: string; apiKey?: string; model?: string; toolCalling?: ToolCallingSetting };
  /** built-in agents to register (react, assistant, supervisor, plan-execute, contract-qa); default all, `[]` none */
  builtInAgents?: string[];
  /** the agent of a turn that names none (default `react`) */
  defaultAgent?: string;
  /** run the shipped migrations at start-up (default true); else run `npx agent-orchestrator-migrate` first */
  migrationsRun?: boolean;
  /** the host's own agents (besides providers decorated with `@OrchestratorAgent`) */
  agents?: HostAgent[];
  /** the host's own tools (besides methods decorated with `@OrchestratorTool`) */
  tools?: StructuredToolInterface[];
  /** any other setting by its environment name, e.g. `{ RUN_TIMEOUT_MS: '30000', API_KEYS: 'acme:…' }` */
  settings?: Env;
}

/** What decides the module's shape, so it is given synchronously (Nest resolves async options only after that). */
export interface AgentOrchestratorLayout {
  /** mount the REST v1 and LangGraph API controllers, under `prefix` (default: not mounted) */
  http?: false | { prefix?: string };
  /** whether this process executes runs (default true); false → it only enqueues them for worker processes */
  worker?: boolean;
  /**
   * `redis` when the options will carry a `redis` URL (forRootAsync; forRoot infers it), else `inline`: runs
   * execute in this process (the health check's `"queue":"inline"`). `in-process` is its former name, still accepted.
   */
  queue?: 'redis' | 'inline' | 'in-process';
}

/** A data source's connection as a URL (its `url`, else host/port/user/password/database). */
function urlOf(ds: DataSource): string {
  const o = ds.options as {
    type: string;
    url?: string;
    host?: string;
    port?: number;
    username?: string;
    password?: unknown;
    database?: string;
  };
  if (o.type !== 'postgres') throw new Error(`Invalid configuration: database.dataSource must be a postgres data source, not ${o.type}`);
  if (o.url) return o.url;
  const auth = o.username
    ? `${encodeURIComponent(o.username)}${typeof o.password === 'string' ? `:${encodeURIComponent(o.password)}` : ''}@`
    : '';
  return `postgres://${auth}${o.host ?? 'localhost'}:${o.port ?? 5432}/${o.database ?? ''}`;
}

function databaseEnv(db: DatabaseOption | undefined): Env {
  if (!db) return {};
  if ('url' in db) return { DATABASE_URL: db.url };
  if ('dataSource' in db) return { DATABASE_URL: urlOf(db.dataSource) };
  return { DATA_DIR: db.embedded.dataDir };
}

/** The options as the service's one typed config (validated the same way as the environment). */
export function configOf(options: AgentOrchestratorOptions, layout: Required<Omit<AgentOrchestratorLayout, 'http'>>): AppConfig {
  if (layout.queue === 'redis' && !options.redis)
    throw new Error('Invalid configuration: queue is "redis" but the options have no redis URL');
  if (layout.queue !== 'redis' && options.redis) throw new Error('Invalid configuration: a redis URL was given; declare queue: "redis"');
  const { model, builtInAgents } = options;
  const env: Env = {
    ...options.settings,
    ...databaseEnv(options.database),
    REDIS_URL: options.redis,
    RUN_WORKER: String(layout.worker),
    LLM_BASE_URL: model?.baseUrl,
    LLM_API_KEY: model?.apiKey,
    LLM_MODEL: model?.model,
    LLM_TOOL_CALLING: model?.toolCalling ?? options.settings?.LLM_TOOL_CALLING,
    BUILTIN_AGENTS: builtInAgents ? builtInAgents.join(',') || 'none' : undefined,
    DEFAULT_AGENT: options.defaultAgent ?? options.settings?.DEFAULT_AGENT,
    DB_MIGRATIONS_RUN: options.migrationsRun === undefined ? options.settings?.DB_MIGRATIONS_RUN : String(options.migrationsRun),
  };
  return new AppConfig(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)));
}
