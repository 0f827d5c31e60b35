import { ConsoleLogger, Logger, type LoggerService } from '@nestjs/common';

type Fields = Record<string, unknown> & { msg: string };

const isFields = (message: unknown): message is Fields =>
  typeof message === 'object' && message !== null && !Array.isArray(message) && typeof (message as Fields).msg === 'string';

/** `run ended run_id=… status=completed ms=12`: a line of fields for a logger that prints text. */
export function oneLine({ msg, ...fields }: Fields): string {
  const value = (v: unknown) => (typeof v === 'string' && !/[\s"=]/.test(v) ? v : JSON.stringify(v));
  const pairs = Object.entries(fields).filter(([, v]) => v !== undefined);
  return [msg, ...pairs.map(([k, v]) => `${k}=${value(v)}`)].join(' ');
}

/** Is the process's Nest logger one that prints an object over many lines (Nest's default console logger)? */
function printsText(): boolean {
  const active = (Logger as unknown as { staticInstanceRef?: LoggerService }).staticInstanceRef;
  return active instanceof ConsoleLogger && !(active as unknown as { options?: { json?: boolean } }).options?.json;
}

const PATCHED = Symbol.for('agent-orchestrator.plainLogLines');
const LEVELS = ['log', 'warn', 'error', 'debug', 'verbose', 'fatal'] as const;

/**
 * The service logs lines with fields (`logger.log({ msg: 'run ended', run_id, status, ms })`): pino (the service's
 * own logger, or a host's) keeps them as fields; Nest's default console logger — a host app's, when the module is
 * embedded — would print each such object over nine lines. Patched on Nest's `Logger` once, so that logger
 * receives one plain line instead (`run ended run_id=… status=completed ms=12`); text messages, objects without
 * `msg` and every other logger are left as they are. Returns whether it is installed.
 */
export function plainLogLines(): boolean {
  const proto = Logger.prototype as unknown as Record<string | symbol, unknown>;
  if (proto[PATCHED]) return true;
  for (const level of LEVELS) {
    const original = proto[level] as (this: Logger, message: unknown, ...rest: unknown[]) => void;
    proto[level] = function (this: Logger, message: unknown, ...rest: unknown[]) {
      return original.call(this, isFields(message) && printsText() ? oneLine(message) : message, ...rest);
    };
  }
  proto[PATCHED] = true;
  return true;
}
