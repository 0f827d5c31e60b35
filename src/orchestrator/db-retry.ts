import { Logger } from '@nestjs/common';

import { POOLER_UNAVAILABLE } from '../database/pooler-errors';

const logger = new Logger('DbRetry');

/** Connection-level failures worth retrying: the server restarted, the connection was reset or refused, PgBouncer has no server. */
export function isTransientDbError(err: unknown): boolean {
  const e = err as { code?: string; message?: string; driverError?: { code?: string; message?: string } } | undefined;
  const code = e?.code ?? e?.driverError?.code ?? '';
  const message = `${e?.message ?? ''} ${e?.driverError?.message ?? ''}`;
  if (
    ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004'].includes(
      code,
    )
  ) {
    return true;
  }
  return (
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|ECONNRESET|ECONNREFUSED|the database system is (starting up|shutting down)/i.test(
      message,
    ) || POOLER_UNAVAILABLE.test(message)
  );
}

/**
 * Runs a database write, retrying connection failures with exponential backoff (100 ms doubling, at most
 * 5 s apart) up to `retries` times. Other errors (constraint violations, bad SQL) fail at once.
 */
export async function withDbRetry<T>(what: string, retries: number, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= retries || !isTransientDbError(err)) throw err;
      const ms = Math.min(5000, 100 * 2 ** attempt);
      logger.warn({ msg: 'database write failed; retrying', what, attempt: attempt + 1, in_ms: ms, err: (err as Error).message });
      await new Promise((r) => setTimeout(r, ms));
    }
  }
}
