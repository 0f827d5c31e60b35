import { readSlice } from '../config/settings';
import { langgraphApiSettings } from './langgraph-api.settings';

describe('langgraph-api settings', () => {
  it('webhook hosts: none by default, lower-cased', () => {
    expect(readSlice(langgraphApiSettings, {}).webhookAllowedHosts).toEqual([]);
    expect(readSlice(langgraphApiSettings, { WEBHOOK_ALLOWED_HOSTS: 'Hooks.Local, 10.0.0.5' }).webhookAllowedHosts).toEqual([
      'hooks.local',
      '10.0.0.5',
    ]);
  });

  it('limits: defaults, and overrides', () => {
    const defaults = readSlice(langgraphApiSettings, {});
    expect(defaults.runMaxDelayS).toBe(3 * 24 * 3600);
    expect(defaults.crons).toEqual({ minIntervalS: 60, maxPerTenant: 100 });
    expect(defaults.store).toEqual({ maxKeyChars: 1024, maxValueBytes: 262_144 });
    const set = readSlice(langgraphApiSettings, { RUN_MAX_DELAY_S: '60', CRON_MIN_INTERVAL_S: '1', STORE_MAX_VALUE_BYTES: '100' });
    expect([set.runMaxDelayS, set.crons.minIntervalS, set.store.maxValueBytes]).toEqual([60, 1, 100]);
  });

  it("RUN_MAX_DELAY_S stays within Node's longest timer (24.8 days); intervals and caps are positive", () => {
    expect(readSlice(langgraphApiSettings, { RUN_MAX_DELAY_S: '2147483' }).runMaxDelayS).toBe(2_147_483);
    expect(() => readSlice(langgraphApiSettings, { RUN_MAX_DELAY_S: '2147484' })).toThrow(/RUN_MAX_DELAY_S/);
    expect(() => readSlice(langgraphApiSettings, { CRON_MIN_INTERVAL_S: '0' })).toThrow(/CRON_MIN_INTERVAL_S/);
    expect(() => readSlice(langgraphApiSettings, { CRON_MAX_PER_TENANT: '0' })).toThrow(/CRON_MAX_PER_TENANT/);
  });
});
