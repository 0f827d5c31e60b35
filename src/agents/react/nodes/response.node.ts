import { textOf } from '../../shared/text';
import type { ReactStateType, ReactUpdate } from '../state';

/** ResponseNode: the final answer is the last AI message's text. */
export function response(state: ReactStateType): ReactUpdate {
  const last = state.messages[state.messages.length - 1];
  return { response: last ? textOf(last.content) : '', current_step: 'response' };
}
