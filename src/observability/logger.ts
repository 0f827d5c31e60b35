import type { IncomingMessage, ServerResponse } from 'node:http';

import { LoggerModule } from 'nestjs-pino';
import pino, { type Logger, type LoggerOptions } from 'pino';
import type PinoPretty from 'pino-pretty';

import type { AppConfig } from '../config/app-config';
import { logFields } from './log-context';
import { sharePinoRequestStore } from './pino-request-store';

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

type Req = IncomingMessage & { tenantId?: string; principal?: { userId?: string }; originalUrl?: string; route?: { path?: string } };

/**
 * nestjs-pino: Nest's Logger writes through pino, each request gets one completion line (method, route,
 * status, time, request id, tenant, a token's user) and every line logged while handling it carries `request_id`.
 * Health checks and scrapes are not logged (they would drown the rest).
 */
export function loggerModule(config: AppConfig) {
  sharePinoRequestStore();
  return LoggerModule.forRoot({
    pinoHttp: {
      logger: createRootLogger(config),
      quietReqLogger: true,
      customAttributeKeys: { reqId: 'request_id' },
      genReqId: (req: Req) => req.id ?? 'unknown', // set by requestContext
      autoLogging: { ignore: (req: Req) => /^\/(health|metrics)(\/|$|\?)/.test(req.url ?? '') },
      // the request's own line: no headers (keys live there), the route pattern rather than ids
      serializers: {
        req: (req: Req) => ({ method: req.method, url: (req.originalUrl ?? req.url ?? '').split('?')[0] }),
        res: (res: ServerResponse) => ({ status: res.statusCode }),
      },
      customSuccessObject: (req: Req, _res: ServerResponse, value: Record<string, unknown>) => ({
        ...value,
        tenant_id: req.tenantId,
        user_id: req.principal?.userId,
        route: req.route?.path,
      }),
      customErrorObject: (req: Req, _res: ServerResponse, _err: Error, value: Record<string, unknown>) => ({
        ...value,
        tenant_id: req.tenantId,
        user_id: req.principal?.userId,
        route: req.route?.path,
      }),
      customSuccessMessage: (req: Req, res: ServerResponse) => `${req.method} ${req.route?.path ?? 'unmatched'} ${res.statusCode}`,
    },
  });
}
