import { AIMessage } from '@langchain/core/messages';

import { outageAnswer, toolResultsOfTurn } from '../../shared/outage';
import { USER_MESSAGES } from '../prompts';
import type { ReactStateType, ReactUpdate } from '../state';

/**
 * ErrorNode: a user-facing message for the error code — after a model outage, what this turn's tools returned
 * (degraded) when they returned something; the conversation records it as the AI's turn.
 */
export function error(state: ReactStateType): ReactUpdate {
  const code = state.error?.code ?? 'AGENT_ERROR';
  let text = (USER_MESSAGES as Record<string, string>)[code] ?? '요청을 처리하지 못했습니다. (The request could not be completed.)';
  let degraded = false;
  if (code === 'MODEL_UNAVAILABLE') ({ text, degraded } = outageAnswer(toolResultsOfTurn(state.messages)));
  const update: ReactUpdate = { response: text, current_step: 'error', degraded };
  // keep the thread well-formed: an empty message never reached the history, others get an AI answer
  if (code !== 'INVALID_INPUT') update.messages = [new AIMessage(text)];
  return update;
}
