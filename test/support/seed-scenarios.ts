/**
 * The seed scenarios of the five agents, each with a check on the answer. test/support/matrix-runner.ts runs them
 * under each combination of tool calling × JSON mode for bench/agent-matrix.ts (the README table) and
 * test/e2e/agent-matrix.e2e-spec.ts (a slice of it in CI).
 */
export type ToolCallingCell = 'native' | 'prompt' | 'auto';
/** on: the endpoint enforces response_format; ignored: it accepts but does not enforce it; off: LLM_JSON_MODE=off */
export type JsonCell = 'on' | 'ignored' | 'off';

export interface ChatBody {
  response: string;
  sources: Array<{ ref: string }>;
  llm_calls: number;
  session_id: string;
  run_id: string;
  tools_used?: string[];
  error: { code: string } | null;
}

export interface SeedScenario {
  id: string;
  agent: string;
  label: string;
  message: string;
  /** the refs the answer's sources must include ([] = the scenario has no sources) */
  sources: string[];
  /** null when the answer is right, else what is wrong */
  check: (body: ChatBody) => string | null;
  /** the contract the question is about (contract-qa): the Korean fixture unless `en` */
  contract?: 'ko' | 'en';
}

export const has =
  (...facts: Array<string | RegExp>) =>
  (b: ChatBody) => {
    const missing = facts.filter((f) => (typeof f === 'string' ? !b.response.includes(f) : !f.test(b.response)));
    return missing.length ? `answer lacks ${missing.map(String).join(', ')}` : null;
  };

export const SEED_SCENARIOS: SeedScenario[] = [
  {
    id: 'cqa-termination',
    agent: 'contract-qa',
    label: '"해지 조건이 뭐야?"',
    message: '해지 조건이 뭐야?',
    sources: ['제10조'],
    check: has('제10조', '30일'),
  },
  {
    id: 'cqa-term',
    agent: 'contract-qa',
    label: '"계약 기간은 얼마나 돼?"',
    message: '계약 기간은 얼마나 돼?',
    sources: ['제3조'],
    check: has('2025년 1월 1일부터 2025년 12월 31일'),
  },
  { id: 'cqa-article', agent: 'contract-qa', label: '"제5조 내용"', message: '제5조 내용', sources: ['제5조'], check: has('일억이천만원') },
  {
    id: 'cqa-model-check',
    agent: 'contract-qa',
    label: '"비밀 정보를 남에게 말해도 돼?" (model decides tools)',
    message: '비밀 정보를 남에게 말해도 돼?',
    sources: ['제7조'],
    check: has('제7조', '누설'),
  },
  { id: 'cqa-greeting', agent: 'contract-qa', label: 'greeting', message: '안녕하세요', sources: [], check: has('안녕하세요') },
  {
    id: 'cqa-out-of-scope',
    agent: 'contract-qa',
    label: 'out of scope',
    message: '오늘 서울 날씨 어때?',
    sources: [],
    check: has('계약서에 관한 질문에만'),
  },
  { id: 'asst-greeting', agent: 'assistant', label: 'greeting', message: '안녕하세요', sources: [], check: has('안녕하세요') },
  { id: 'asst-calculator', agent: 'assistant', label: 'calculator', message: '123 * 456 계산해줘', sources: [], check: has('56088') },
  {
    id: 'asst-rag',
    agent: 'assistant',
    label: 'RAG (rules route)',
    message: '회사 휴가 정책이 뭐야?',
    sources: ['hr.md'],
    check: has('15일'),
  },
  {
    id: 'asst-rag-router',
    agent: 'assistant',
    label: 'RAG (model routes)',
    message: '출장 가면 하루에 얼마 받아?',
    sources: ['travel.md'],
    check: has('3만 원'),
  },
  { id: 'react-calculator', agent: 'react', label: 'tool call', message: 'What is 12 times 7?', sources: [], check: has('84') },
  {
    id: 'react-tool-error',
    agent: 'react',
    label: 'tool error fed back',
    message: 'What time is it in Mars/Olympus?',
    sources: [],
    check: has('Mars/Olympus'),
  },
  {
    id: 'sup-walkthrough',
    agent: 'supervisor',
    label: 'walk-through',
    message: '입사하면 쉬는 날이 며칠이야?',
    sources: ['hr.md'],
    check: has('15일'),
  },
  {
    id: 'sup-rules-route',
    agent: 'supervisor',
    label: 'rules route (rag_agent)',
    message: '회사 휴가 정책 알려줘',
    sources: ['hr.md'],
    check: has('15일'),
  },
  {
    id: 'sup-calculator',
    agent: 'supervisor',
    label: 'calculator (internal_agent)',
    message: '123 * 456 계산해줘',
    sources: [],
    check: has('56088'),
  },
  { id: 'pe-chitchat', agent: 'plan-execute', label: 'chitchat', message: '안녕하세요!', sources: [], check: has('안녕하세요') },
  {
    id: 'pe-1-step',
    agent: 'plan-execute',
    label: 'plan of 1 step',
    message: '1234 곱하기 5678은 얼마야?',
    sources: [],
    check: has('7006652'),
  },
  {
    id: 'pe-3-steps',
    agent: 'plan-execute',
    label: 'plan of 3 steps',
    message: '2의 10제곱, 3의 5제곱, 그리고 지금 UTC 시각 알려줘',
    sources: [],
    check: (b) => has('1024', '243', String(new Date().getUTCFullYear()))(b),
  },
  {
    id: 'pe-search-summarize',
    agent: 'plan-execute',
    label: 'search → summarize (input_from)',
    message: 'LangGraph가 뭔지 검색하고 요약해줘',
    sources: ['langgraph.md'],
    check: has('상태 그래프'),
  },
];
