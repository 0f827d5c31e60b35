import { type Language, localize, type Messages } from '../../core/language';

/** The user-facing texts every agent shares, per language (core/language.ts): the user reads the language they wrote in. */
export interface AgentTexts {
  modelUnavailable: string;
  /** heads what was found before the model failed */
  modelUnavailablePartial: string;
  noModel: string;
  iterationLimit: string;
  invalidInput: string;
  failed: string;
  /** run ends the run driver reports (orchestrator/run-outcomes.service.ts) */
  runTimeout: string;
  cancelled: string;
  budgetExceeded: string;
  sessionBusy: string;
  internalError: string;
  attemptsExhausted: string;
}

export const AGENT_TEXTS: Messages<AgentTexts> = {
  en: {
    modelUnavailable: 'The language model could not be reached, so I could not answer. Please try again later.',
    modelUnavailablePartial: 'The language model could not be reached; this is what was found so far.',
    noModel: 'No language model is configured: I can only evaluate arithmetic (e.g. "(12+3)*4") and tell the current date and time.',
    iterationLimit: 'The request needed too many steps. Please split it into smaller questions.',
    invalidInput: 'The message is empty. Please enter a question.',
    failed: 'The request could not be completed.',
    runTimeout: 'The request took too long and was stopped.',
    cancelled: 'The request was cancelled.',
    budgetExceeded: 'The request used up its budget of model or tool calls and was stopped.',
    sessionBusy: 'An earlier request of this session is still running. Please try again shortly.',
    internalError: 'Something went wrong while handling the request.',
    attemptsExhausted: 'The request failed on every attempt.',
  },
  ko: {
    modelUnavailable: '언어 모델에 연결할 수 없어 답변하지 못했습니다. 잠시 후 다시 시도해 주세요.',
    modelUnavailablePartial: '언어 모델에 연결할 수 없어 지금까지 찾은 내용만 전합니다.',
    noModel: '언어 모델이 설정되어 있지 않아 계산(예: "(12+3)*4")과 현재 날짜·시간 질문에만 답할 수 있습니다.',
    iterationLimit: '요청이 너무 복잡합니다. 질문을 나누어 다시 시도해 주세요.',
    invalidInput: '메시지가 비어 있습니다. 질문을 입력해 주세요.',
    failed: '요청을 처리하지 못했습니다.',
    runTimeout: '처리 시간이 초과되었습니다.',
    cancelled: '요청이 취소되었습니다.',
    budgetExceeded: '이 요청에 허용된 사용량을 초과하여 중단했습니다.',
    sessionBusy: '이전 요청을 처리하는 중입니다. 잠시 후 다시 시도해 주세요.',
    internalError: '요청을 처리하는 중 오류가 발생했습니다.',
    attemptsExhausted: '요청을 처리하지 못했습니다.',
  },
};

export function agentTexts(language: Language): AgentTexts {
  return localize(AGENT_TEXTS, language);
}
