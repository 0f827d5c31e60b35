import { AppConfig } from './app-config';

/** An environment as the process (or a test) gives it. */
export type Env = Record<string, string | undefined>;

/**
 * The one AppConfig of a process: entry points (main.ts, worker.ts) build it once and pass it down; callers
 * that only have an environment (tests, benchmarks) pass that, and it is read here, once, at the top.
 */
export function resolveConfig(source: AppConfig | Env = process.env): AppConfig {
  return source instanceof AppConfig ? source : new AppConfig(source);
}
