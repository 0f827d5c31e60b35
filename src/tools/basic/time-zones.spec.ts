import { createDatetimeTool } from './datetime.tool';
import { resolveZone, zoneInText } from './time-zones';

describe('time zones named in a question', () => {
  it.each([
    ['What time is it in Berlin?', 'Europe/Berlin'],
    ['time in new york right now', 'America/New_York'],
    ['What is the local time in LA?', 'America/Los_Angeles'],
    ['베를린은 지금 몇 시야?', 'Europe/Berlin'],
    ['도쿄 현지 시간 알려줘', 'Asia/Tokyo'],
    ['What time is it in Europe/Lisbon?', 'Europe/Lisbon'],
    ['current time in UTC', 'UTC'],
    ['What time is it in Mars/Olympus?', 'Mars/Olympus'],
  ])('%s → %s', (question, zone) => {
    expect(zoneInText(question)).toBe(zone);
  });

  it('names no zone when the question has none (a city inside a word does not count)', () => {
    expect(zoneInText('What time is it?')).toBeNull();
    expect(zoneInText('Ask Larry about the parish plan')).toBeNull();
  });

  it('resolves a city given as a tool argument; anything else is kept for the tool to check', () => {
    expect(resolveZone('Berlin')).toBe('Europe/Berlin');
    expect(resolveZone(' seoul ')).toBe('Asia/Seoul');
    expect(resolveZone('Europe/Paris')).toBe('Europe/Paris');
  });
});

describe('get_current_datetime default zone', () => {
  it('uses its configured default when the call names no zone, and a named city otherwise', async () => {
    const tool = createDatetimeTool('Europe/Berlin');
    await expect(tool.invoke({})).resolves.toMatch(/, Europe\/Berlin\)$/);
    await expect(tool.invoke({ timezone: 'Tokyo' })).resolves.toMatch(/\+09:00 \(\w+day, Asia\/Tokyo\)$/);
    expect(tool.description).toContain('default Europe/Berlin');
  });
});
