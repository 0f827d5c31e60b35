import type { Messages } from '../../core/language';

export const ASSISTANT_SYSTEM_PROMPT = `당신은 도움이 되는 AI 어시스턴트입니다.
필요하면 도구를 사용하세요. [참고 문서]가 있으면 그 내용에 근거해 답하고 문서 제목을 밝히세요.
도구가 오류를 돌려주면 원인을 설명하거나 인자를 고쳐 다시 시도하세요. 사용자의 언어로 답하세요.`;

/** Seed 001 ROUTER_PROMPT, asking for `{route, reason}` as JSON. */
export const ROUTER_PROMPT = `사용자 질문을 분류하세요.
- rag: 회사 문서, 정책, 규정 등 저장된 문서에서 정보를 찾아야 하는 질문
- agent: 일반 대화, 계산, 코딩, 날씨, 검색 등

JSON으로만 답하세요: {"route": "rag" | "agent", "reason": "판단 근거"}`;

/** The assistant's own answers without a model, per language. */
export const ASSISTANT_TEXTS: Messages<{ noModel: string; documents: string }> = {
  en: {
    noModel: 'No language model is configured: I can only calculate, tell the time and quote the knowledge base.',
    documents: 'From the documents:',
  },
  ko: {
    noModel: '언어 모델이 설정되어 있지 않아 계산, 현재 시간, 저장된 문서 검색에만 답할 수 있습니다.',
    documents: '관련 문서 내용입니다:',
  },
};

/** The long_term_memory node's system-prompt section: the facts recalled for this turn follow it, one per line. */
export const RECALLED_FACTS_HEADER: Messages<string> = {
  en: '[What you remember about this user from earlier conversations — use it only where it is relevant]',
  ko: '[이전 대화에서 기억한 사용자 정보 — 관련 있을 때만 활용하세요]',
};
