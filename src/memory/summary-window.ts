/** Seed 001: summaries are kept as one string joined by this separator, oldest first. */
export const SUMMARY_SEPARATOR = '\n---SUMMARY_BREAK---\n';

/** add_summary_to_window: append, then keep only the newest `maxSummaries`. */
export function addSummaryToWindow(existing: string, summary: string, maxSummaries: number): string {
  const summaries = existing ? existing.split(SUMMARY_SEPARATOR) : [];
  summaries.push(summary);
  return summaries.slice(-maxSummaries).join(SUMMARY_SEPARATOR);
}

/** format_summary_for_prompt: "[대화 기록 1]\n…\n\n[대화 기록 2]\n…" */
export function formatSummaryForPrompt(summary: string): string {
  if (!summary) return '';
  return summary
    .split(SUMMARY_SEPARATOR)
    .map((s, i) => `[대화 기록 ${i + 1}]\n${s.trim()}`)
    .join('\n\n');
}
