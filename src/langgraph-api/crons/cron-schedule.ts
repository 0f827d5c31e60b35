import { CronExpressionParser } from 'cron-parser';

import { InvalidRequestException } from '../errors';

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
