import { sessionTitle, TITLE_LENGTH } from './session-title';

describe('sessionTitle', () => {
  it('is the first message on one line, whole when it fits', () => {
    expect(sessionTitle('  What is\n nine\ttimes nine?  ')).toBe('What is nine times nine?');
    expect(sessionTitle('x'.repeat(TITLE_LENGTH))).toBe('x'.repeat(TITLE_LENGTH));
  });

  it('cuts a long message to the limit with an ellipsis, never inside a surrogate pair', () => {
    expect(sessionTitle('a'.repeat(100))).toBe(`${'a'.repeat(TITLE_LENGTH - 1)}…`);
    const title = sessionTitle('😀'.repeat(80))!;
    expect([...title]).toHaveLength(TITLE_LENGTH);
    expect(title).toBe(`${'😀'.repeat(TITLE_LENGTH - 1)}…`);
    expect(sessionTitle(`${'계약 해지 조건 '.repeat(10)}`)!.endsWith('…')).toBe(true);
  });

  it('is null without a message', () => {
    expect(sessionTitle(undefined)).toBeNull();
    expect(sessionTitle(' \n ')).toBeNull();
  });
});
