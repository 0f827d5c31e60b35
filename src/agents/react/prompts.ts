import type { AgentTexts } from '../shared/messages';

export const REACT_SYSTEM_PROMPT = `You are a helpful assistant that can use tools.
Use a tool whenever it gives a more reliable answer (arithmetic → calculator, current date/time → get_current_datetime).
If a tool returns an error, correct the arguments or explain the problem to the user.
Answer in the language of the user's last message. Keep answers short and factual.`;

/** The error codes with a user-facing answer of their own (seed: ErrorNode's user-friendly messages). */
export const USER_MESSAGE_KEYS = {
  ITERATION_LIMIT: 'iterationLimit',
  INVALID_INPUT: 'invalidInput',
  MODEL_UNAVAILABLE: 'modelUnavailable',
  NO_MODEL: 'noModel',
} as const satisfies Record<string, keyof AgentTexts>;
