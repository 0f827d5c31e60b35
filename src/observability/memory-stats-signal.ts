import { appendFileSync } from 'node:fs';

import { ShutdownSignal } from '@nestjs/common';

/** The signal that asks for the memory figures (MEMORY_STATS_FILE); Node's `--heapsnapshot-signal` may share it. */
export const MEMORY_STATS_SIGNAL = 'SIGUSR2';

/**
 * The signals `enableShutdownHooks` stops the app on. Nest's default is every ShutdownSignal, SIGUSR2 included,
 * so SIGUSR2 (`--heapsnapshot-signal=SIGUSR2`, nodemon) shut the service down; with MEMORY_STATS_FILE set it is
 * left out and answered by `installMemoryStatsSignal` instead.
 */
export function shutdownSignals(memoryStatsFile: string | undefined): string[] | undefined {
  if (!memoryStatsFile) return undefined;
  return Object.values(ShutdownSignal).filter((s) => s !== MEMORY_STATS_SIGNAL);
}

/**
 * Soak tests only (off unless MEMORY_STATS_FILE is set; no HTTP route): on SIGUSR2, a full garbage collection
 * when the process was started with `--expose-gc`, then one JSON line with the heap in use and the RSS appended
 * to `file` (`gc: false` when no collection could be forced). A bench reads the line after sending the signal.
 */
export function installMemoryStatsSignal(file: string | undefined): void {
  if (!file) return;
  process.on(MEMORY_STATS_SIGNAL, () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const { heapUsed, rss } = process.memoryUsage();
    appendFileSync(file, `${JSON.stringify({ pid: process.pid, heap_used_bytes: heapUsed, rss_bytes: rss, gc: Boolean(gc) })}\n`);
  });
}
