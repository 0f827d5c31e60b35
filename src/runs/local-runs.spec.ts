import type { AppConfig } from '../config/app-config';
import type { RunEntity } from '../database/entities';
import { LocalRuns } from './local-runs.service';
import type { RunExecutor } from './run-executor.service';
import type { RunQueue } from './run-queue';
import type { RunStore } from './store/run-store';

function run(id: string, status: RunEntity['status']): RunEntity {
  return { id, status, sessionId: `s-${id}`, tenantId: 't', input: { message: 'x' } } as RunEntity;
}

describe('LocalRuns', () => {
  const releases: Array<() => void> = [];
  const started: Array<{ id: string; startedAtAccept?: boolean; newThread?: boolean }> = [];
  const executor = {
    execute: (id: string, opts: { startedAtAccept?: boolean; newThread?: boolean }) => {
      started.push({ id, startedAtAccept: opts.startedAtAccept, newThread: opts.newThread });
      return new Promise((resolve) => releases.push(() => resolve({})));
    },
  } as unknown as RunExecutor;
  const queue = { anyParked: async () => false, enqueue: async () => undefined } as unknown as RunQueue;
  const config = { localRunConcurrency: 1, durability: { shutdownGraceMs: 1000 } } as AppConfig;

  it('executes up to LOCAL_RUN_CONCURRENCY queued runs, and always a run accepted already started', async () => {
    const local = new LocalRuns(executor, queue, {} as RunStore, config);
    expect(local.hasRoom()).toBe(true);
    expect(local.start(run('a', 'queued'))).toBe(true);
    expect(local.hasRoom()).toBe(false);
    expect(local.start(run('b', 'queued'))).toBe(false); // it goes to the queue
    // accepted `running` (it holds its session's lease): nobody else would execute it
    expect(local.start(run('c', 'running'), { newThread: true })).toBe(true);
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([
      { id: 'a', startedAtAccept: false, newThread: undefined },
      { id: 'c', startedAtAccept: true, newThread: true },
    ]);
    const a = local.execution('a');
    releases.shift()!();
    await a;
    expect(local.execution('a')).toBeNull();
    expect(local.hasRoom()).toBe(false); // c still runs
    releases.shift()!();
    await local.execution('c');
    expect(local.hasRoom()).toBe(true);
  });

  it('LOCAL_RUN_CONCURRENCY=0: every run goes to the queue', () => {
    const local = new LocalRuns(executor, queue, {} as RunStore, { ...config, localRunConcurrency: 0 } as AppConfig);
    expect(local.hasRoom()).toBe(false);
    expect(local.start(run('d', 'queued'))).toBe(false);
  });
});
