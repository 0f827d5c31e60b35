/** Fills `{name}` placeholders of a prompt template; unknown names stay as they are. */
export const fill = (template: string, values: Record<string, string | number>) =>
  template.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m));

/** The text of a message's content (a string, or the text parts of a content list). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((c) => (typeof c === 'string' ? c : ((c as { text?: string }).text ?? ''))).join('');
  }
  return '';
}
