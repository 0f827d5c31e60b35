import { checkInterval, shortestInterval } from './cron-schedule';

describe('cron schedule intervals', () => {
  const at = new Date('2026-03-01T10:30:00Z');

  it.each([
    ['* * * * * *', 1],
    ['*/30 * * * * *', 30],
    ['0,10 * * * * *', 10],
    ['* * * * *', 60],
    ['*/5 * * * *', 300],
    // bursts later in the day show within the ticks looked at
    ['0-1 0 * * *', 60],
    ['* 0 * * * *', 1],
    ['0 9 * * 1-5', 86_400],
  ])('%s ticks at least %d s apart', (schedule, seconds) => {
    expect(shortestInterval(schedule, null, at)).toBe(seconds);
  });

  it('a rare schedule: its ticks years apart', () => {
    expect(shortestInterval('0 0 29 2 *', null, at)).toBeGreaterThanOrEqual(4 * 365 * 86_400);
  });

  it('refuses a schedule faster than the minimum, naming the setting', () => {
    expect(() => checkInterval('* * * * * *', 'Europe/Paris', 60)).toThrow(/ticks 1 s apart; the limit is 60 \(CRON_MIN_INTERVAL_S\)/);
    expect(() => checkInterval('* * * * *', null, 60)).not.toThrow();
  });
});
