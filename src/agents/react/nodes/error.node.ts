import { AIMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';

import { turnLanguage } from '../../../core/language';
import { type AgentTexts, agentTexts } from '../../shared/messages';
import { outageAnswer, toolResultsOfTurn } from '../../shared/outage';
import { USER_MESSAGE_KEYS } from '../prompts';
import type { ReactStateType, ReactUpdate } from '../state';

/**
 * ErrorNode: a user-facing message for the error code — after a model outage, what this turn's tools returned
 * (degraded) when they returned something; the conversation records it as the AI's turn.
 */
export function error(state: ReactStateType, config?: LangGraphRunnableConfig): ReactUpdate {
  const code = state.error?.code ?? 'AGENT_ERROR';
  const language = turnLanguage(config, state.user_message);
  const texts = agentTexts(language);
  let text = texts[(USER_MESSAGE_KEYS as Record<string, keyof AgentTexts>)[code] ?? 'failed'];
  let degraded = false;
  if (code === 'MODEL_UNAVAILABLE') ({ text, degraded } = outageAnswer(toolResultsOfTurn(state.messages), language));
  const update: ReactUpdate = { response: text, current_step: 'error', degraded };
  // keep the thread well-formed: an empty message never reached the history, others get an AI answer
  if (code !== 'INVALID_INPUT') update.messages = [new AIMessage(text)];
  return update;
}
