import type { ReactStateType, ReactUpdate } from '../state';

/** InputNode: the user message is already appended by the turn's input; validate it. */
export function input(state: ReactStateType): ReactUpdate {
  if (!state.user_message || state.user_message.trim() === '') {
    return { current_step: 'input', error: { code: 'INVALID_INPUT', message: 'message is empty' } };
  }
  return { current_step: 'input' };
}
