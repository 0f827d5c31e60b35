import { CronExpressionParser } from 'cron-parser';

import { InvalidRequestException, LimitExceededException } from '../errors';

/**
 * Cron expressions as BullMQ's job schedulers read them (they use the same `cron-parser`): 5 fields
 * (minute … weekday) or 6 with seconds first, in `timezone` (UTC when absent).
 */
export function validateSchedule(schedule: string, timezone: string | null | undefined): void {
  const fields = schedule.trim().split(/\s+/).length;
  if (fields < 5 || fields > 6) throw new InvalidRequestException(`schedule: "${schedule}" is not a cron expression of 5 (or 6) fields`);
  if (timezone) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    } catch {
      throw new InvalidRequestException(`timezone: "${timezone}" is not an IANA time zone`);
    }
  }
  try {
    CronExpressionParser.parse(schedule, { tz: timezone ?? 'UTC' }).next();
  } catch (err) {
    throw new InvalidRequestException(`schedule: "${schedule}" is not a valid cron expression (${(err as Error).message})`);
  }
}

/** When the schedule fires next after `after`; null when that is past `endTime` (or never). */
export function nextRunDate(schedule: string, timezone: string | null, endTime: Date | null, after = new Date()): Date | null {
  try {
    const next = CronExpressionParser.parse(schedule, { tz: timezone ?? 'UTC', currentDate: after })
      .next()
      .toDate();
    return endTime && next > endTime ? null : next;
  } catch {
    return null;
  }
}

/** Ticks of a schedule looked at to find its shortest interval (a cron's fastest burst shows within them). */
const TICKS_SAMPLED = 20;

/**
 * The shortest time, in seconds, between two of the schedule's next ticks (of TICKS_SAMPLED); Infinity when it
 * ticks at most once. The schedule must be valid (validateSchedule).
 */
export function shortestInterval(schedule: string, timezone: string | null | undefined, after = new Date()): number {
  const ticks = CronExpressionParser.parse(schedule, { tz: timezone ?? 'UTC', currentDate: after }).take(TICKS_SAMPLED);
  let shortest = Infinity;
  for (let i = 1; i < ticks.length; i++) shortest = Math.min(shortest, (ticks[i].getTime() - ticks[i - 1].getTime()) / 1000);
  return shortest;
}

/** 422 `CRON_TOO_FREQUENT` for a schedule that ticks more often than every `minIntervalS` (CRON_MIN_INTERVAL_S). */
export function checkInterval(schedule: string, timezone: string | null | undefined, minIntervalS: number): void {
  const shortest = shortestInterval(schedule, timezone);
  if (shortest < minIntervalS) {
    throw new LimitExceededException(
      'CRON_TOO_FREQUENT',
      `schedule: "${schedule}" ticks ${shortest} s apart`,
      'CRON_MIN_INTERVAL_S',
      minIntervalS,
    );
  }
}
