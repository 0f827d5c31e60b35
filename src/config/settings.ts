import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

import { z } from 'zod';

/**
 * Settings slices: each module owns the environment variables it reads (`<module>/<module>.settings.ts`): a zod
 * schema and a description per variable, and the transform into the AppConfig fields it owns. The slices are
 * listed once, at the entry layer (`src/settings/all-settings.ts`), which registers them here; AppConfig validates them all at
 * once. This file imports no module: the slices import it.
 */

/** One environment variable: its schema, what it means (docs/configuration.md), and its default when the schema's is not telling. */
export interface Variable<S extends z.ZodType = z.ZodType> {
  schema: S;
  doc: string;
  /** the settings table's default column when the parsed default alone does not say it (e.g. "unset → in-process") */
  default?: string;
}

export type Variables = Record<string, Variable>;

/** The parsed environment a slice's `build` receives: each variable's schema output. */
export type Parsed<V extends Variables> = { [K in keyof V]: z.output<V[K]['schema']> };

export interface SettingsSlice<V extends Variables = Variables, F extends object = object, G extends Getters = Getters> {
  /** the owning module, as the settings table names it */
  module: string;
  variables: V;
  build(env: Parsed<V>): F;
  /** fields computed on read from the slice's own fields (prototype getters, so a spread or Object.assign sees the current value) */
  getters?: G;
}

/** getters read the slice's own fields; each names the fields' type on its parameter */
type Getters = Record<string, (fields: any) => unknown>;

/** Any slice, as the list of them holds it. */
export type AnySettingsSlice = SettingsSlice<any, any, any>;

/** The AppConfig fields a slice adds (top-level readonly, as the class declared them). */
export type SettingsOf<S> =
  S extends SettingsSlice<Variables, infer F, infer G> ? Readonly<F> & { readonly [K in keyof G]: ReturnType<G[K]> } : never;

/** A variable: `variable(int(3000), 'HTTP port')`. */
export function variable<S extends z.ZodType>(schema: S, doc: string, defaultText?: string): Variable<S> {
  return { schema, doc, default: defaultText };
}

/** A module's slice; its type param carries the fields into `SettingsOf` for AppConfig's declaration merging. */
export function defineSettings<V extends Variables, F extends object, G extends Getters = Record<never, never>>(
  slice: SettingsSlice<V, F, G>,
): SettingsSlice<V, F, G> {
  return slice;
}

/** The error every configuration problem is reported with (tests and operators grep for the prefix). */
export function invalidConfiguration(problem: string): Error {
  return new Error(`Invalid configuration: ${problem}`);
}

/**
 * A setting holding a JSON object of named entries (`MCP_SERVERS`, `A2A_AGENTS`), or the path of a file holding it:
 * each entry checked by `entry(name, value)`; a problem names the variable (and `entry` its field).
 */
export function namedEntries<T>(
  variable: string,
  setting: string,
  what: string,
  entry: (name: string, value: unknown) => T,
): Record<string, T> {
  let text = setting;
  try {
    if (!/^[{[]/.test(setting.trimStart())) text = readFileSync(setting, 'utf8');
  } catch (err) {
    throw invalidConfiguration(`${variable}: neither JSON nor a readable file (${(err as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw invalidConfiguration(`${variable}: not valid JSON (${(err as Error).message})`);
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw invalidConfiguration(`${variable}: an object of ${what} by name`);
  return Object.fromEntries(Object.entries(json).map(([name, value]) => [name, entry(name, value)]));
}

/** The slices' variables as one zod object (a variable read by two slices is a programming error). */
export function settingsSchema(slices: readonly AnySettingsSlice[]): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const slice of slices) {
    for (const [name, v] of Object.entries<Variable>(slice.variables)) {
      if (shape[name]) throw new Error(`settings: ${name} is read by two settings slices`);
      shape[name] = v.schema;
    }
  }
  return z.object(shape);
}

/**
 * Validates `env` against `schema` (every slice at once: all problems in one error), then builds each slice's
 * fields into one object.
 */
export function buildSettings(slices: readonly AnySettingsSlice[], schema: z.ZodObject, env: Record<string, string | undefined>): object {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw invalidConfiguration(problems);
  }
  const fields: Record<string, unknown> = {};
  for (const slice of slices) {
    const own = slice.build(parsed.data) as Record<string, unknown>;
    for (const key of Object.keys(own)) {
      if (key in fields) throw new Error(`settings: two settings slices define "${key}"`);
    }
    Object.assign(fields, own);
  }
  return fields;
}

/** One slice read on its own (its unit tests): its fields, without the getters AppConfig adds. */
export function readSlice<S extends AnySettingsSlice>(slice: S, env: Record<string, string | undefined>): SettingsOf<S> {
  return buildSettings([slice], settingsSchema([slice]), env) as SettingsOf<S>;
}

// --- shared parsers --------------------------------------------------------------------------------------------

/** true|false|1|0|yes|no; unset → `def` */
export const bool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .optional()
    .transform((v) => (v === undefined ? def : ['true', '1', 'yes'].includes(v)));

/** an integer ≥ `min`; unset → `def` */
export const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);

/** trimmed; unset or blank → undefined */
export const optionalString = z
  .string()
  .optional()
  .transform((v) => (v && v.trim() !== '' ? v.trim() : undefined));

/**
 * An optional URL with one of `schemes` (e.g. `['postgres', 'postgresql']`); unset or blank → undefined. The
 * error names the schemes and what was given, without its credentials.
 */
export const optionalUrl = (schemes: readonly string[]) =>
  optionalString.superRefine((v, ctx) => {
    if (v === undefined) return;
    const want = schemes.map((s) => `${s}://`).join(' or ');
    let scheme: string;
    try {
      scheme = new URL(v).protocol.replace(/:$/, '');
    } catch {
      ctx.addIssue({ code: 'custom', message: `must be a ${want} URL; got "${v.replace(/\/\/[^@/]*@/, '//…@')}", which is not a URL` });
      return;
    }
    if (!schemes.includes(scheme)) ctx.addIssue({ code: 'custom', message: `must be a ${want} URL; got a ${scheme}:// URL` });
  });

/** a positive integer, or `auto` for one per core; unset or blank → 1 */
export const processCount = z
  .string()
  .trim()
  .regex(/^(auto|[1-9]\d*|)$/, 'a positive integer or "auto"')
  .optional()
  .transform((v) => (!v ? 1 : v === 'auto' ? usableCores() : Number(v)));

/**
 * The cores this process may use: the CPUs it may run on, fewer when its cgroup has a CPU quota (a container's
 * CPU limit: cgroup v2 `cpu.max`, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`), rounded up, at least one.
 */
export function usableCores(read: (path: string) => string = (path) => readFileSync(path, 'utf8')): number {
  const cpus = availableParallelism();
  const quota = cgroupQuota(read);
  return quota === null ? cpus : Math.max(1, Math.min(cpus, Math.ceil(quota)));
}

function cgroupQuota(read: (path: string) => string): number | null {
  const ratio = (quota: string | undefined, period: string | undefined) =>
    Number(quota) > 0 && Number(period) > 0 ? Number(quota) / Number(period) : null;
  try {
    const [quota, period] = read('/sys/fs/cgroup/cpu.max').trim().split(/\s+/);
    return ratio(quota, period); // "max 100000": no limit
  } catch {
    try {
      return ratio(read('/sys/fs/cgroup/cpu/cpu.cfs_quota_us').trim(), read('/sys/fs/cgroup/cpu/cpu.cfs_period_us').trim());
    } catch {
      return null;
    }
  }
}

/** a comma-separated list, each item trimmed, blanks dropped */
export function list(spec: string | undefined): string[] {
  return (spec ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

// --- the settings table (docs/configuration.md) ------------------------------------------------------------------------------------------

/** What a variable defaults to, as the settings table says it: its own text, else what the schema gives for unset. */
export function defaultText(v: Variable): string {
  if (v.default !== undefined) return v.default;
  const parsed = v.schema.safeParse(undefined);
  if (!parsed.success || parsed.data === undefined) return 'unset';
  return `\`${String(parsed.data)}\``;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The markdown table of every variable of the slices, in their order: variable, module, meaning, default. */
export function settingsTable(slices: readonly AnySettingsSlice[]): string {
  const rows = slices.flatMap((s) =>
    Object.entries<Variable>(s.variables).map(([name, v]) => `| \`${name}\` | ${s.module} | ${cell(v.doc)} | ${cell(defaultText(v))} |`),
  );
  return ['| variable | module | meaning | default |', '|---|---|---|---|', ...rows].join('\n');
}

/** The page that carries the settings table, from the repository's root. */
export const SETTINGS_PAGE = 'docs/configuration.md';

/** The settings table sits between these markers in SETTINGS_PAGE (`npm run settings:table -- --write` rewrites it). */
export const TABLE_START =
  '<!-- settings-table:start (generated by `npm run settings:table -- --write` from the settings slices; do not edit) -->';
export const TABLE_END = '<!-- settings-table:end -->';

/** `page` with the text between the markers replaced by `table`. */
export function withSettingsTable(page: string, table: string): string {
  const start = page.indexOf(TABLE_START);
  const end = page.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`${SETTINGS_PAGE}: the settings table markers are missing (${TABLE_START} … ${TABLE_END})`);
  return `${page.slice(0, start + TABLE_START.length)}\n${table}\n${page.slice(end)}`;
}
