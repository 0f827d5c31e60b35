import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';

import { SUMMARY_SYSTEM_PROMPT, summaryUserPrompt } from './prompts';

const MAX_EXTRACTIVE_CHARS = 1200;

const text = (m: BaseMessage) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
const speaker = (m: BaseMessage) => ({ human: '사용자', ai: '어시스턴트', tool: '도구' })[m.getType() as string] ?? m.getType();

export function transcriptOf(messages: BaseMessage[]): string {
  return messages
    .filter((m) => text(m).trim())
    .map((m) => `${speaker(m)}: ${text(m).trim()}`)
    .join('\n');
}

/** A summary by the model, or — with no model, or when it fails — an extractive one. Never empty for non-empty input. */
export async function summariseMessages(
  messages: BaseMessage[],
  model: BaseChatModel | null,
  config?: RunnableConfig,
  /** the summaries so far, so facts survive the window sliding (formatted for the prompt) */
  previous = '',
): Promise<string> {
  if (model) {
    try {
      const prompt = summaryUserPrompt(transcriptOf(messages), previous);
      const reply = await model.invoke([new SystemMessage(SUMMARY_SYSTEM_PROMPT), new HumanMessage(prompt)], config);
      const summary = text(reply).trim();
      if (summary) return summary;
    } catch (err) {
      if (config?.signal?.aborted) throw err;
    }
  }
  return extractiveSummary(messages);
}

/** What the user said (their statements carry the facts) and the first sentence of each answer, bounded. */
export function extractiveSummary(messages: BaseMessage[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    const t = text(m).replace(/\s+/g, ' ').trim();
    if (!t) continue;
    if (m.getType() === 'human') lines.push(`사용자: ${t.slice(0, 300)}`);
    else if (m.getType() === 'ai') lines.push(`어시스턴트: ${firstSentence(t).slice(0, 200)}`);
  }
  let out = lines.join('\n');
  while (out.length > MAX_EXTRACTIVE_CHARS && lines.length > 1) {
    // keep the user's statements longest: drop the oldest assistant line first, else the oldest line
    const i = lines.findIndex((l) => l.startsWith('어시스턴트'));
    lines.splice(i >= 0 ? i : 0, 1);
    out = lines.join('\n');
  }
  return out.slice(0, MAX_EXTRACTIVE_CHARS);
}

function firstSentence(t: string): string {
  return t.match(/^.*?[.!?。]|^.*?다\.|^.+$/)?.[0] ?? t;
}
