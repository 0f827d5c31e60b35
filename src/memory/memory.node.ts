import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';

import { type MemoryLimits, planCompaction } from './memory-policy';
import { summariseMessages } from './summarizer';
import { addSummaryToWindow, formatSummaryForPrompt } from './summary-window';

export interface MemoryState {
  messages: BaseMessage[];
  summary: string;
}

/**
 * The `memory` node (seed 001): beyond `maxMessages`, the older messages become a summary (the model's, or an
 * extractive one without a model) in the sliding window, and leave the checkpointed state via RemoveMessage.
 */
export function createMemoryNode(deps: { model: () => BaseChatModel | null; limits: MemoryLimits }) {
  return async function memory(state: MemoryState, config: LangGraphRunnableConfig) {
    const plan = planCompaction(state.messages, deps.limits);
    if (!plan) return {};
    const summary = await summariseMessages(plan.toSummarise, deps.model(), config, formatSummaryForPrompt(state.summary ?? ''));
    return {
      summary: addSummaryToWindow(state.summary ?? '', summary, deps.limits.maxSummaries),
      messages: plan.removals,
    };
  };
}

/** The system prompt with the summaries ("[이전 대화 요약]") and retrieved documents ("[참고 문서]"). */
export function buildSystemPrompt(base: string, summary: string, context?: string): string {
  const parts = [base];
  if (summary) parts.push(`[이전 대화 요약]\n${formatSummaryForPrompt(summary)}`);
  if (context) parts.push(`[참고 문서]\n${context}`);
  return parts.join('\n\n');
}
