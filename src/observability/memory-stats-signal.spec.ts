import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { installMemoryStatsSignal, MEMORY_STATS_SIGNAL, shutdownSignals } from './memory-stats-signal';

describe('memory stats signal (MEMORY_STATS_FILE)', () => {
  it("keeps Nest's shutdown signals when off, and leaves SIGUSR2 out when on", () => {
    expect(shutdownSignals(undefined)).toBeUndefined();
    const on = shutdownSignals('/tmp/x')!;
    expect(on).toEqual(expect.arrayContaining(['SIGTERM', 'SIGINT']));
    expect(on).not.toContain('SIGUSR2');
  });

  it('appends heap used and RSS to the file on SIGUSR2', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'memstats-'));
    const file = path.join(dir, 'm.jsonl');
    const before = process.listeners(MEMORY_STATS_SIGNAL);
    try {
      installMemoryStatsSignal(file);
      process.emit(MEMORY_STATS_SIGNAL);
      const line = JSON.parse(readFileSync(file, 'utf8').trim()) as Record<string, unknown>;
      expect(line).toMatchObject({ pid: process.pid, gc: typeof (globalThis as { gc?: unknown }).gc === 'function' });
      expect(line.heap_used_bytes).toBeGreaterThan(0);
      expect(line.rss_bytes).toBeGreaterThan(0);
    } finally {
      for (const l of process.listeners(MEMORY_STATS_SIGNAL)) if (!before.includes(l)) process.off(MEMORY_STATS_SIGNAL, l);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
