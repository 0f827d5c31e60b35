import { tool } from '@langchain/core/tools';
import { z } from 'zod';

export const DEFAULT_TIME_ZONE = 'Asia/Seoul';

/** Current date and time in an IANA time zone; an unknown zone is an error the model sees. */
export function currentDatetime(timeZone: string = DEFAULT_TIME_ZONE, now: Date = new Date()): string {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      weekday: 'long',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    }).formatToParts(now);
  } catch {
    throw new Error(`unknown time zone "${timeZone}": use an IANA name such as "Asia/Seoul" or "Europe/Berlin"`);
  }
  const p = Object.fromEntries(parts.map((x) => [x.type, x.value]));
  const offset = (p.timeZoneName ?? 'GMT').replace('GMT', '') || '+00:00';
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}${offset} (${p.weekday}, ${timeZone})`;
}

export const datetimeTool = tool(async ({ timezone }: { timezone?: string }) => currentDatetime(timezone ?? DEFAULT_TIME_ZONE), {
  name: 'get_current_datetime',
  description: 'Returns the current date, time and weekday in a time zone (IANA name, default Asia/Seoul).',
  schema: z.object({
    timezone: z.string().optional().describe('IANA time zone, e.g. "Asia/Seoul", "America/New_York"'),
  }),
});
