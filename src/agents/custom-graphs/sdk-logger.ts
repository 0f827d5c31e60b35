import { Logger } from '@nestjs/common';

/** The symbol `getLogger()` of `@langchain/langgraph-sdk/logging` reads, as the LangGraph platform registers it. */
const SDK_LOGGER = Symbol.for('langgraph.api.sdk-logger');

type Level = 'error' | 'warn' | 'log' | 'debug' | 'verbose';
/** the SDK's (winston's) level names and the Nest level each writes at */
const LEVELS: Record<string, Level> = {
  error: 'error',
  warn: 'warn',
  help: 'log',
  data: 'log',
  info: 'log',
  debug: 'debug',
  prompt: 'log',
  http: 'debug',
  verbose: 'verbose',
  input: 'log',
  silly: 'verbose',
};

/**
 * Makes `getLogger()` work in graph modules, as on LangGraph Platform: a logger with the SDK's leveled methods
 * (`logger.info("…", {meta})`, `logger.warn({…})`) that writes through the service's logger under the context
 * `graph`. Registered once, before graph modules load; a logger already registered (a host's) is kept.
 */
export function registerSdkLogger(): void {
  const scope = globalThis as Record<symbol, unknown>;
  if (scope[SDK_LOGGER] !== undefined) return;
  const nest = new Logger('graph');
  const sdkLogger: Record<string, (message: unknown, ...meta: unknown[]) => unknown> = {};
  for (const [name, level] of Object.entries(LEVELS)) {
    sdkLogger[name] = (message: unknown, ...meta: unknown[]) => {
      const extra = Object.assign({}, ...meta.filter((m): m is object => typeof m === 'object' && m !== null));
      const entry = typeof message === 'object' && message !== null ? { ...extra, ...message } : { ...extra, msg: String(message) };
      nest[level](entry);
      return sdkLogger;
    };
  }
  scope[SDK_LOGGER] = sdkLogger;
}
