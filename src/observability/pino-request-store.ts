import { pinoStore, withPinoStore } from './log-context';

/** what nestjs-pino's LoggerModule middleware and PinoLogger call on `require('nestjs-pino/storage').storage` */
interface RequestStorage {
  run<T>(store: unknown, fn: () => T): T;
  getStore(): unknown;
}

const shared: RequestStorage = { run: withPinoStore, getStore: pinoStore };

/**
 * nestjs-pino keeps each request's logger in an AsyncLocalStorage of its own, a third one enabled beside the
 * log context's and LangChain's; on Node 20 every enabled one is visited for every promise the process creates
 * (some 2,300 in a react turn). This keeps that store in the log context's scope instead (log-context.ts), so
 * nestjs-pino's own storage is never entered, hence never enabled. Lines logged while a request is handled
 * still go through its request logger (`request_id`), `PinoLogger.assign` still changes the request's store.
 *
 * Relies on (nestjs-pino 4.6.1; the canary is pino-request-store.spec.ts): `nestjs-pino/storage` exporting
 * `storage`, and LoggerModule's middleware and PinoLogger reading that export at each call
 * (`storage_1.storage.run(...)`, `storage_1.storage.getStore()`), never a copy of it. Called where the
 * LoggerModule is configured (logger.ts), before any request.
 */
export function sharePinoRequestStore(): void {
  const mod = require('nestjs-pino/storage') as { storage: RequestStorage };
  mod.storage = shared;
}
