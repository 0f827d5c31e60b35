import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { AppConfig } from '../../config/app-config';
import { ThreadRetention } from './thread-retention';

/** A langgraph.json with these keys, in a directory of its own. */
function langgraphJson(content: Record<string, unknown>): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'retention-')), 'langgraph.json');
  writeFileSync(file, JSON.stringify({ graphs: {}, ...content }));
  return file;
}

const config = (langgraphConfig: string | undefined, defaultMinutes?: number) =>
  ({ langgraphConfig, threadTtl: { defaultMinutes, strategy: 'keep_latest', sweepMinutes: 5 } }) as unknown as AppConfig;

describe('ThreadRetention: the default TTL and the sweep', () => {
  it('without langgraph.json: the THREAD_TTL_* settings', () => {
    const r = new ThreadRetention(config(undefined, 0.5));
    expect(r.defaultTtl).toEqual({ minutes: 0.5, strategy: 'keep_latest' });
    expect(r.sweepIntervalMs).toBe(300_000);
    expect(r.sweepLimit).toBe(1000);
    expect(new ThreadRetention(config(undefined)).defaultTtl).toBeNull();
  });

  it('langgraph.json `checkpointer.ttl` wins over the settings, its absent keys taking their defaults', () => {
    const file = langgraphJson({ checkpointer: { ttl: { default_ttl: 0.02, sweep_interval_minutes: 0.01, sweep_limit: 7 } } });
    const r = new ThreadRetention(config(file, 30));
    expect(r.defaultTtl).toEqual({ minutes: 0.02, strategy: 'delete' });
    expect(r.sweepIntervalMs).toBe(600);
    expect(r.sweepLimit).toBe(7);
    // a file that names no default TTL: threads without their own are kept, whatever the settings say
    const none = new ThreadRetention(config(langgraphJson({ checkpointer: { ttl: { strategy: 'keep_latest' } } }), 30));
    expect(none.defaultTtl).toBeNull();
    expect(none.sweepIntervalMs).toBe(3_600_000);
  });

  it('a file without `checkpointer.ttl` leaves the settings in force; a thread’s own TTL beats the default', () => {
    const r = new ThreadRetention(config(langgraphJson({ store: {} }), 2));
    expect(r.defaultTtl).toEqual({ minutes: 2, strategy: 'keep_latest' });
    expect(r.ttlOf({ minutes: 9, strategy: 'delete' })).toEqual({ minutes: 9, strategy: 'delete' });
    expect(r.ttlOf(null)).toEqual(r.defaultTtl);
  });
});
