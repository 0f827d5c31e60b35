import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

import { z } from 'zod';

import { type StorageConfig, storageConfigOf } from '../../database/storage-config';

/** One entry of `graphs`: `"name": "./path.ts:exportName"` (the export defaults to `default`, as the CLI does). */
export interface GraphSpec {
  name: string;
  /** as written in the file, for messages */
  spec: string;
  /** absolute path of the module */
  file: string;
  exportName: string;
}

/** What this service takes from a LangGraph CLI `langgraph.json`. */
export interface LanggraphConfig {
  path: string;
  graphs: GraphSpec[];
  /** `env` (a .env file or an object), set into process.env before the graph modules load */
  env: Record<string, string>;
  /** `dependencies`: recorded, not installed */
  dependencies: string[];
  /** `http.app`: the user's Hono app mounted in front of the API (its module and export) */
  httpApp?: Omit<GraphSpec, 'name'>;
  /** `auth.path`: the module and export of the custom auth (an `Auth` of `@langchain/langgraph-sdk/auth`) */
  auth?: Omit<GraphSpec, 'name'>;
  /** `ui`: each graph's generative-UI component file (absolute), bundled and served under /ui/{graph} */
  ui: Record<string, string>;
  /** `ui_config.shared`: packages the UI bundles leave to the page (as the platform's bundler does) */
  uiShared: string[];
  /** the directory of langgraph.json, which UI paths must stay under */
  dir: string;
  /** `store` (index, ttl) and `checkpointer` (ttl): semantic search and retention */
  storage: StorageConfig;
  /** keys of the CLI's format this service does not use (dockerfile_lines, node_version, auth.disable_studio_auth, …) */
  ignored: string[];
  /** what this service accepts and the LangGraph CLI refuses, each with the portable form */
  portability: string[];
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const schema = z.object({
  graphs: z.record(z.string(), z.string().min(1)),
  env: z.union([z.string().min(1), z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]))]).optional(),
  dependencies: z.array(z.string()).optional(),
  http: z.object({ app: z.string().min(1).optional() }).optional(),
  ui: z.record(z.string(), z.string().min(1)).optional(),
  auth: z
    .object({ path: z.string().min(1).optional() })
    .passthrough()
    .optional(),
  ui_config: z.object({ shared: z.array(z.string()).optional() }).optional(),
  // validated by storageConfigOf (database/storage-config.ts), which the store and the retention sweeper read
  store: z.unknown().optional(),
  checkpointer: z.unknown().optional(),
});

/** Reads and validates a `langgraph.json`; every problem is an error naming the file. */
export function readLanggraphConfig(file: string): LanggraphConfig {
  const fail = (why: string): never => {
    throw new Error(`Invalid configuration: LANGGRAPH_CONFIG ${file}: ${why}`);
  };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    return fail((err as Error).message);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return fail(parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '));
  const dir = path.dirname(file);
  const graphs = Object.entries(parsed.data.graphs).map(([name, spec]) => {
    if (!NAME.test(name)) fail(`graph name "${name}" must be 1–64 characters of A-Z, a-z, 0-9, ".", "_" or "-"`);
    return parseGraphSpec(name, spec, dir);
  });
  if (graphs.length === 0) fail('"graphs" is empty');
  return {
    path: file,
    graphs,
    env: envOf(parsed.data.env, dir, fail),
    dependencies: parsed.data.dependencies ?? [],
    httpApp: parsed.data.http?.app ? parseGraphSpec('http.app', parsed.data.http.app, dir) : undefined,
    auth: parsed.data.auth?.path ? parseGraphSpec('auth', parsed.data.auth.path, dir) : undefined,
    ui: Object.fromEntries(Object.entries(parsed.data.ui ?? {}).map(([graph, file]) => [graph, path.resolve(dir, file)])),
    uiShared: parsed.data.ui_config?.shared ?? [],
    dir,
    storage: storageConfigOf(parsed.data, dir, file),
    ignored: [
      ...Object.keys(raw as object).filter((k) => !(k in schema.shape)),
      ...Object.keys((raw as { http?: object }).http ?? {})
        .filter((k) => k !== 'app')
        .map((k) => `http.${k}`),
      ...Object.keys(parsed.data.auth ?? {})
        .filter((k) => k !== 'path')
        .map((k) => `auth.${k}`),
    ],
    portability: graphs
      .filter((g) => !g.spec.slice(2).includes(':'))
      .map(
        (g) =>
          `graph "${g.name}": "${g.spec}" names no export; the LangGraph CLI refuses it — write "${g.spec}:default" (read here as the default export)`,
      ),
  };
}

/** `./path.ts:export` → the module's absolute path and the export (`default` when omitted, as the CLI does). */
export function parseGraphSpec(name: string, spec: string, dir: string): GraphSpec {
  // a Windows drive letter ("C:\…") is not an export separator
  const at = spec.lastIndexOf(':');
  const hasExport = at > 1 || (at === 1 && !/^[A-Za-z]$/.test(spec[0]));
  const modulePath = hasExport ? spec.slice(0, at) : spec;
  const exportName = (hasExport ? spec.slice(at + 1) : '') || 'default';
  return { name, spec, file: path.resolve(dir, modulePath), exportName };
}

function envOf(env: string | Record<string, string | number | boolean> | undefined, dir: string, fail: (why: string) => never) {
  if (env === undefined) return {};
  if (typeof env === 'object') return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)]));
  const file = path.resolve(dir, env);
  try {
    return Object.fromEntries(Object.entries(parseEnv(readFileSync(file, 'utf8'))).map(([k, v]) => [k, v ?? '']));
  } catch (err) {
    return fail(`env file ${file}: ${(err as Error).message}`);
  }
}

/**
 * The `env` values for the graph modules, set before they load; a variable already set wins (as the CLI's
 * `env` does not override the environment). This is the one place `src/` writes the environment: user graph
 * modules read their settings from it. Returns the names that were set.
 */
export function applyGraphEnv(env: Record<string, string>, target: Record<string, string | undefined>): string[] {
  const set: string[] = [];
  for (const [k, v] of Object.entries(env)) {
    if (target[k] !== undefined) continue;
    target[k] = v;
    set.push(k);
  }
  return set;
}
