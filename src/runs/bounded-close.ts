/** past RUN_SHUTDOWN_GRACE_MS, how long a BullMQ worker's close may still take */
export const CLOSE_MARGIN_MS = 5000;

/** Whether `promise` settles (either way) within `ms`. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** What closeWithin needs of a BullMQ worker (or queue). */
export interface Closable {
  close(): Promise<void>;
  disconnect(): Promise<void>;
}

/**
 * Closes a BullMQ worker or queue, bounded: BullMQ's close waits for its blocking client's `end`, which a client
 * left reconnecting (after a Redis cut) may never emit (taskforcesh/bullmq#4656) — a shutdown that would hang.
 * Past `waitMs` its Redis clients are disconnected (bounded by CLOSE_MARGIN_MS too); `late` is told so.
 * Whether it closed in time.
 */
export async function closeWithin(target: Closable, waitMs: number, late: (waitedMs: number) => void): Promise<boolean> {
  if (await settlesWithin(target.close(), waitMs)) return true;
  late(waitMs);
  await settlesWithin(target.disconnect(), CLOSE_MARGIN_MS);
  return false;
}
