import { readSlice } from '../config/settings';
import { runsSettings } from './runs.settings';

describe('runs settings', () => {
  it('defaults', () => {
    const s = readSlice(runsSettings, {});
    expect(s).toMatchObject({
      queuePrefix: 'agents',
      runWorker: true,
      workerConcurrency: 8,
      localRunConcurrency: 32,
      runTimeoutMs: 120_000,
    });
    expect([s.runLockMs, s.runStalledCheckMs]).toEqual([5_000, 2_500]);
    expect(s.runBudget).toEqual({ modelCalls: 50, modelTokens: 200_000, toolCalls: 50 });
    expect(s.durability).toEqual({ maxAttempts: 3, reconcileMs: 5_000, shutdownGraceMs: 10_000, checkpoints: 'step', dbWriteRetries: 8 });
  });

  it('rejects a lock shorter than 500 ms and an unknown checkpoint mode', () => {
    expect(() => readSlice(runsSettings, { RUN_LOCK_MS: '100' })).toThrow(/^Invalid configuration: RUN_LOCK_MS: /);
    expect(() => readSlice(runsSettings, { RUN_CHECKPOINTS: 'never' })).toThrow(/RUN_CHECKPOINTS/);
  });
});
