/** Longest session title, in characters (code points: a cut never splits an emoji or a surrogate pair). */
export const TITLE_LENGTH = 60;

/** A session's title: its first user message on one line, cut to TITLE_LENGTH characters with "…". */
export function sessionTitle(firstMessage: string | undefined): string | null {
  const line = (firstMessage ?? '').replace(/\s+/g, ' ').trim();
  if (!line) return null;
  const chars = [...line];
  return chars.length <= TITLE_LENGTH
    ? line
    : `${chars
        .slice(0, TITLE_LENGTH - 1)
        .join('')
        .trimEnd()}…`;
}
