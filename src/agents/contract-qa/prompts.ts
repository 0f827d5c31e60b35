import type { Messages } from '../../core/language';

/** Seed 000's prompts (JSON answers); the values in {braces} are filled by the nodes. */
export const JSON_ANALYST = '당신은 질문 분석 전문가입니다. JSON 형식으로만 응답하세요.';

export const CHECK_TOOL_PROMPT = `다음 질문이 계약서 내용 조회를 필요로 하는지 판단하세요.

질문: {question}

판단 기준:
- 계약서 조항, 내용, 조건 등을 물어보는 경우 → 툴 필요
- 일반적인 인사, 감사 표현 → 툴 불필요
- 계약서와 무관한 질문 → 툴 불필요

응답 형식 (JSON):
{"needs_tools": true/false, "reasoning": "판단 근거"}`;

export const PLANNER_SYSTEM = '당신은 계약서 분석 전문가입니다. JSON 형식으로만 응답하세요.';

export const PLANNER_PROMPT = `현재 상태를 분석하여 다음에 실행할 툴을 선택하세요.

질문: {question}
반복 횟수: {iteration}/{max}
실행한 툴: {tool_count}개
수집된 정보: {info_count}개

계약서 구조:
{structure}

이미 실행한 툴:
{history}

사용 가능한 툴:
- get_contract_structure: 사용자 계약서의 구조(조 목록, 별지 목록)를 파악합니다. 파라미터: {}
- hybrid_search: 키워드 기반 하이브리드 검색으로 관련 조항을 찾습니다. 파라미터: {"topics": [{"topic_name": "주제명", "queries": ["검색어1", "검색어2"]}]}
- get_article_by_index: 조 번호 또는 별지 번호로 직접 조회합니다. 파라미터: {"article_numbers": [1, 3, 5], "exhibit_numbers": [1, 2]}
- get_article_by_title: 조 제목으로 조항을 검색합니다. 파라미터: {"titles": ["데이터 제공", "보안"]}
- lookup_standard_contract: 표준계약서 조문을 조회합니다. 파라미터: {"user_article_numbers": [3, 5]} 또는 {"topic": "검색 주제"}

중요:
1. 위에 나열된 "이미 실행한 툴"은 절대 다시 선택하지 마세요
2. 같은 툴을 다른 파라미터로 실행하는 것은 가능하지만, 같은 파라미터로는 불가능합니다

응답 형식 (JSON):
{"tool": "툴 이름", "args": {}, "reasoning": "선택 근거"}`;

export const EVALUATOR_SYSTEM = '당신은 정보 충분성 평가 전문가입니다. JSON 형식으로만 응답하세요.';

export const EVALUATOR_PROMPT = `수집된 정보가 질문에 답변하기 충분한지 평가하세요.

질문: {question}

수집된 정보: {count}개
{details}

평가 기준:
1. 질문에 직접 답변할 수 있는가?
2. 추가 탐색이 필요한가? (이미 수집한 정보와 중복되는 탐색은 불필요)
3. 반복 횟수: {iteration}/{max}

응답 형식 (JSON):
{"is_sufficient": true/false, "reasoning": "평가 근거", "missing_info": "부족한 정보 또는 null"}

중요: 이미 관련 정보가 충분히 수집되었다면 is_sufficient=true로 판단하세요.`;

export const RESPOND_SYSTEM = `당신은 계약서 질의응답 전문가입니다.

규칙:
1. 제공된 계약서 내용만을 기반으로 답변하세요
2. 계약서에 없는 내용은 추측하지 마세요
3. 참조한 조항의 출처를 명시하세요
4. 명확하고 이해하기 쉽게 답변하세요
5. 불확실한 경우 솔직히 말하세요`;

export const RESPOND_USER = `계약서 내용:
{context}

질문: {question}

위 계약서 내용을 바탕으로 질문에 답변해주세요.`;

/** contract-qa's own answers, per language (core/language.ts). */
export interface ContractQaTexts {
  directReply: string;
  noContract: string;
  notFound: string;
  /** heads the quoted articles when no model writes the answer */
  found: string;
  /** marks a search hit's snippet */
  excerpt: string;
  /** the contract has no clause on a topic the question asks about ({topic}: the topic's label) */
  noClause: string;
  /** heads the articles quoted beside a missing clause */
  nearest: string;
}

export const CONTRACT_QA_TEXTS: Messages<ContractQaTexts> = {
  en: {
    directReply: 'Hello! Ask me anything about the contract, e.g. "What are the termination conditions?" or "What does Article 5 say?"',
    noContract: "Please name the contract to ask about (the request's contract_id). Contracts are uploaded with POST /v1/contracts.",
    notFound: 'I could not find an article about that in the contract. Please rephrase the question or give the article number.',
    found: 'The relevant articles:',
    excerpt: '(search excerpt)',
    noClause: 'The contract has no clause on {topic}.',
    nearest: 'The nearest articles:',
  },
  ko: {
    directReply: '안녕하세요! 계약서에 관해 궁금한 점을 물어보세요. 예: "해지 조건이 뭐야?", "제5조 알려줘"',
    noContract: '질문할 계약서를 지정해 주세요 (요청의 contract_id). 계약서는 POST /v1/contracts로 올릴 수 있습니다.',
    notFound: '계약서에서 질문과 관련된 조항을 찾지 못했습니다. 다른 표현으로 물어보시거나 조 번호를 알려 주세요.',
    found: '관련 조항입니다:',
    excerpt: '(검색 결과 발췌)',
    noClause: '계약서에 {topic}에 관한 조항이 없습니다.',
    nearest: '가장 가까운 조항입니다:',
  },
};
