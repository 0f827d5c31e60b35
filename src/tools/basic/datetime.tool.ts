import { tool } from '@langchain/core/tools';
import { z } from 'zod';

import { resolveZone, systemTimeZone } from './time-zones';

/** Current date and time in an IANA time zone (or a major city's); an unknown zone is an error the model sees. */
export function currentDatetime(zone: string = systemTimeZone(), now: Date = new Date()): string {
  const timeZone = resolveZone(zone);
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

/** get_current_datetime with `defaultZone` (DEFAULT_TIMEZONE, else the process's zone) when the call names none. */
export function createDatetimeTool(defaultZone: string = systemTimeZone()) {
  return tool(async ({ timezone }: { timezone?: string }) => currentDatetime(timezone || defaultZone), {
    name: 'get_current_datetime',
    description: `Returns the current date, time and weekday in a time zone (IANA name or major city; default ${defaultZone}). Pass the zone of the place the user asks about.`,
    schema: z.object({
      timezone: z.string().optional().describe('IANA time zone or a major city, e.g. "Europe/Berlin", "America/New_York", "Seoul"'),
    }),
  });
}

/** the tool with the process's zone as its default (the registry builds its own from DEFAULT_TIMEZONE) */
export const datetimeTool = createDatetimeTool();
