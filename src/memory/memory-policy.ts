import { type BaseMessage, RemoveMessage } from '@langchain/core/messages';

export interface MemoryLimits {
  /** more messages than this in the state → summarise the older ones (seed: MAX_MESSAGES = 10) */
  maxMessages: number;
  /** messages kept verbatim after a summary (seed: KEEP_RECENT = 5) */
  keepRecent: number;
  /** summaries kept in the sliding window (seed: MAX_SUMMARIES = 3) */
  maxSummaries: number;
}

export const DEFAULT_MEMORY_LIMITS: MemoryLimits = { maxMessages: 10, keepRecent: 5, maxSummaries: 3 };

/**
 * Which messages to fold into a summary, or null while the state is within `maxMessages`. The kept tail never
 * starts with a tool result whose AI tool call would be summarised away (the pair stays together).
 */
export function planCompaction(
  messages: BaseMessage[],
  limits: MemoryLimits,
): { toSummarise: BaseMessage[]; removals: RemoveMessage[] } | null {
  if (messages.length <= limits.maxMessages) return null;
  let cut = messages.length - limits.keepRecent;
  while (cut > 0 && messages[cut].getType() === 'tool') cut--;
  if (cut <= 0) return null;
  const toSummarise = messages.slice(0, cut);
  return { toSummarise, removals: toSummarise.filter((m) => m.id).map((m) => new RemoveMessage({ id: m.id! })) };
}
