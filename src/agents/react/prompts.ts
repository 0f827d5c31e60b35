import { MODEL_UNAVAILABLE_TEXT } from '../shared/outage';

export const REACT_SYSTEM_PROMPT = `You are a helpful assistant that can use tools.
Use a tool whenever it gives a more reliable answer (arithmetic → calculator, current date/time → get_current_datetime).
If a tool returns an error, correct the arguments or explain the problem to the user.
Answer in the language of the user's last message. Keep answers short and factual.`;

/** Answers the service gives without a model (seed: ErrorNode's user-friendly messages). */
export const USER_MESSAGES = {
  ITERATION_LIMIT: '요청이 너무 복잡합니다. 질문을 나누어 다시 시도해 주세요. (The request needed too many steps; please split it up.)',
  INVALID_INPUT: '메시지가 비어 있습니다. 질문을 입력해 주세요. (The message is empty.)',
  MODEL_UNAVAILABLE: MODEL_UNAVAILABLE_TEXT,
  NO_MODEL:
    '언어 모델이 설정되어 있지 않아 계산(예: "(12+3)*4")과 현재 날짜·시간 질문에만 답할 수 있습니다. ' +
    '(No language model is configured: I can evaluate arithmetic and tell the current date and time.)',
} as const;
