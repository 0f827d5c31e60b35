import { LoggerModule } from 'nestjs-pino';
import pino, { type Logger, type LoggerOptions } from 'pino';
import type PinoPretty from 'pino-pretty';

import type { AppConfig } from '../config/app-config';
import { logFields } from './log-context';

/** LOG_LEVEL keeps Nest's names; pino's levels underneath. */
const PINO_LEVEL = { error: 'error', warn: 'warn', log: 'info', debug: 'debug', verbose: 'trace' } as const;

/** Where keys and secrets could appear in a line: replaced, never written. */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.apiKey',
  '*.api_key',
  '*.authorization',
  '*.password',
  '*.secret',
  '*.token',
];

/** Prompts and tool outputs (debug level only) are cut to this many characters. */
export const MAX_LOGGED_TEXT = 2000;

let debugOn = false;

/** Whether debug lines are written: callers skip building prompt/output text otherwise. */
export function debugLogging(): boolean {
  return debugOn;
}

export function truncateForLog(text: string): string {
  return text.length > MAX_LOGGED_TEXT ? `${text.slice(0, MAX_LOGGED_TEXT)}… (${text.length} chars)` : text;
}

function pinoOptions(config: AppConfig): LoggerOptions {
  return {
    level: PINO_LEVEL[config.logLevel],
    // pid: which API process wrote the line when WEB_CONCURRENCY runs several (cluster.ts)
    base: { service: config.tracing.serviceName, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    messageKey: 'msg',
    redact: { paths: REDACT, censor: '[redacted]' },
    // tenant, session, run, agent, node of the current request or run (see log-context.ts)
    mixin: logFields,
  };
}

let root: Logger | undefined;

/**
 * The process's pino logger: JSON lines on stdout, or pino-pretty's coloured lines with LOG_FORMAT=pretty.
 * One per process (nestjs-pino keeps the first it sees for lines outside requests); a later app in the same
 * process (tests) sets its level. Lines go through `process.stdout.write`, so an in-process test can read them.
 */
export function createRootLogger(config: AppConfig): Logger {
  debugOn = ['debug', 'verbose'].includes(config.logLevel);
  if (root) {
    root.level = PINO_LEVEL[config.logLevel];
    return root;
  }
  const options = pinoOptions(config);
  const stdout = { write: (line: string) => process.stdout.write(line) };
  root = config.logFormat === 'pretty' ? pino(options, prettyLines()) : pino(options, stdout);
  return root;
}

/** pino-pretty's coloured lines (LOG_FORMAT=pretty), loaded only then */
function prettyLines() {
  const pretty = require('pino-pretty') as typeof PinoPretty;
  return pretty({ colorize: true, singleLine: true });
}

/** Before the configuration is read (or when it is invalid): a JSON line on stdout all the same. */
export function logStartupFailure(context: string, err: Error): void {
  pino({ messageKey: 'msg', timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } }).fatal(
    { context, err: err.message },
    'failed to start',
  );
}

/** The process's logger once created (the request completion lines of request-log.ts), undefined before. */
export function processLogger(): Logger | undefined {
  return root;
}

/**
 * nestjs-pino: Nest's Logger writes through pino. Its per-request middleware (pino-http) is not mounted: a
 * request's lines get `request_id` from the log context's mixin (log-context.ts), and its completion line is
 * written by request-log.ts, so a request costs no child loggers and no second AsyncLocalStorage (each enabled one
 * adds work to every promise of the process).
 */
export function loggerModule(config: AppConfig) {
  return LoggerModule.forRoot({ pinoHttp: { logger: createRootLogger(config) }, forRoutes: [] });
}
