import { ToolInputParsingException } from '@langchain/core/tools';
import { isGraphInterrupt } from '@langchain/langgraph';
import { ZodError } from 'zod';

import { DomainException } from '../../core/errors';

/** How often a failed tool call is tried again, and which failures are worth it. */
export interface RetryPolicy {
  retries: number;
  retryable(err: unknown): boolean;
}

export const NO_RETRY: RetryPolicy = { retries: 0, retryable: () => false };

/**
 * Transient failures (a dropped connection, a time-out, a 5xx) may succeed on a second try; bad arguments, "not
 * found" and other 4xx answers will not — retrying them only repeats the same answer.
 */
export function isTransientToolError(err: unknown): boolean {
  if (err instanceof ToolInputParsingException || err instanceof ZodError) return false;
  if (err instanceof DomainException) return err.status >= 500;
  const message = err instanceof Error ? err.message : String(err);
  return !/not found|does not exist|invalid|must be|expected|required|unknown tool/i.test(message);
}

export const retryTransient = (retries: number): RetryPolicy => ({ retries, retryable: isTransientToolError });

/** Runs `call` under `policy`; cancellation (the signal) and LangGraph interrupts (approval pauses) always propagate. */
export async function withRetries<T>(
  call: () => Promise<T>,
  policy: RetryPolicy,
  signal?: AbortSignal,
): Promise<{ ok: true; value: T; attempts: number } | { ok: false; error: unknown; attempts: number }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return { ok: true, value: await call(), attempts: attempt };
    } catch (err) {
      if (signal?.aborted || isGraphInterrupt(err)) throw err;
      if (attempt > policy.retries || !policy.retryable(err)) return { ok: false, error: err, attempts: attempt };
    }
  }
}
