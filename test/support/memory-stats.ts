import { existsSync, readFileSync } from 'node:fs';

import { waitFor } from './test-app';

export interface MemoryStats {
  heapMb: number;
  rssMb: number;
}

/**
 * The heap of a service process after a forced garbage collection: the process runs with `--expose-gc` and
 * MEMORY_STATS_FILE=`file` (src/observability/memory-stats-signal.ts); SIGUSR2 makes it collect and append a line.
 */
export async function memoryAfterGc(pid: number, file: string, timeoutMs = 30_000): Promise<MemoryStats> {
  const lines = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
  const before = lines().length;
  process.kill(pid, 'SIGUSR2');
  const line = await waitFor(async () => lines()[before], timeoutMs);
  const stats = JSON.parse(line) as { heap_used_bytes: number; rss_bytes: number; gc: boolean };
  if (!stats.gc) throw new Error('the service was not started with --expose-gc: no garbage collection was forced');
  return { heapMb: mb(stats.heap_used_bytes), rssMb: mb(stats.rss_bytes) };
}

const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;
