import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { ChatRequest, ScriptedReply } from '../support/model-server';
import { useService } from '../support/service-fixture';
import { http } from '../support/test-app';

const text = (c: unknown) => (typeof c === 'string' ? c : JSON.stringify(c ?? ''));
const systemOf = (r: ChatRequest) => text(r.messages[0]?.content);
const lastOf = (r: ChatRequest) => r.messages[r.messages.length - 1];

/**
 * A model that decides the way a real one may, from what it is sent: it calls the evaluator satisfied at once,
 * wraps JSON in prose unless a response_format constrains it, wraps plans in {"steps": [...]} under JSON mode,
 * answers tool requests natively or in the ReAct text format (whichever the request asks for), and builds its
 * answers from the tool results and context it was given — so a right answer means the data reached it. It answers
 * in English when the service asks it to ("Answer in English" in a system prompt), else in Korean.
 */
function plausibleModel(req: ChatRequest): ScriptedReply {
  const sys = systemOf(req);
  const last = lastOf(req);
  const prompt = sys.includes('Action Input:');
  const observation = last.role === 'tool' ? text(last.content) : (/^Observation: ([\s\S]*)/.exec(text(last.content))?.[1] ?? null);
  const json = (value: unknown): ScriptedReply => ({ json: value, wrap: 'prose' });
  const jsonMode = req.response_format !== undefined;
  const call = (name: string, args: Record<string, unknown>): ScriptedReply =>
    prompt
      ? { content: `Thought: 도구가 필요하다\nAction: ${name}\nAction Input: ${JSON.stringify(args)}` }
      : { toolCalls: [{ name, args }] };
  const final = (answer: string): ScriptedReply =>
    prompt ? { content: `Thought: 답할 수 있다\nFinal Answer: ${answer}` } : { content: answer };
  const fact = (source: string, pattern: RegExp, fallback: string) => pattern.exec(source)?.[0] ?? fallback;
  const en = req.messages.some((m) => m.role === 'system' && text(m.content).includes('Answer in English'));
  const days = en ? /\d+ days/ : /\d+일/;

  if (sys.includes('충분성')) return json({ is_sufficient: true, reasoning: '검색 결과로 충분하다', missing_info: null });
  if (sys.includes('질의응답') && en)
    return { content: `According to the contract, ${fact(text(last.content), /at least \d+ days[^.\n]*/, 'no article covers this')}.` };
  if (sys.includes('질의응답'))
    return { content: `계약서에 따르면 ${fact(text(last.content), /\d+일 전[^.\n]*/, '관련 조항이 없습니다')}.` };
  if (sys.includes('사용자 질문을 분류')) return json({ route: 'rag', reason: '사내 규정 질문' });
  if (sys.includes('의도 분류기'))
    return json({ intent: 'new_question', rewritten_query: '1234 × 5678 계산', needs_tool: true, constraints: '' });
  if (sys.includes('계획 수립기')) {
    const steps = [{ step_id: 1, tool: 'calculator', input: '1234 * 5678' }];
    return json(jsonMode ? { steps } : steps);
  }
  if (sys.includes('실행 결과를 정리'))
    return { content: en ? `The result is ${fact(sys, /\d{5,}/, 'unknown')}.` : `결과는 ${fact(sys, /\d{5,}/, '알 수 없음')} 입니다.` };
  if (sys.includes('수퍼바이저')) {
    const results = text(last.content);
    if (!results.includes('[에이전트 결과]'))
      return { content: 'Thought: 내부 문서가 필요하다\nDelegate: rag_agent\nTask: 연차 휴가 규정 검색' };
    const leave = fact(results, days, '?');
    return { content: `Thought: 충분하다\nFinal Answer: ${en ? `Annual leave is ${leave}.` : `연차 휴가는 ${leave}입니다.`}` };
  }
  if (sys.includes('내부 지식 기반 검색 전문가'))
    return observation === null
      ? call('search_knowledge_base', { query: en ? 'annual leave' : '연차 휴가' })
      : final(`${en ? 'Per the policy:' : '규정상'} ${fact(observation, days, '?')}`);
  if (sys.includes('[참고 문서]'))
    return final(en ? `Annual leave is ${fact(sys, days, 'unknown')}.` : `연차 휴가는 ${fact(sys, days, '알 수 없음')}입니다.`);
  return observation === null ? call('calculator', { expression: '6*7' }) : final(`6 × 7 = ${observation}`);
}

interface Scenario {
  name: string;
  request: (ctx: { contractId: string; contractIdEn: string }) => Record<string, unknown>;
  answer: RegExp;
  sources: number;
}

const SCENARIOS: Scenario[] = [
  { name: '002 react: 6 곱하기 7은?', request: () => ({ agent: 'react', message: '6 곱하기 7은?' }), answer: /6 × 7 = 42/, sources: 0 },
  {
    name: '001 assistant: router → rag → answer',
    request: () => ({ agent: 'assistant', message: '입사 1년 차에 쉬는 날은 며칠이야?' }),
    answer: /연차 휴가는 15일입니다/,
    sources: 1,
  },
  {
    name: '003 supervisor: → rag_agent → answer',
    request: () => ({ agent: 'supervisor', message: '입사하면 쉬는 날이 며칠이야?' }),
    answer: /연차 휴가는 15일입니다/,
    sources: 1,
  },
  {
    name: '004 plan-execute: intent → plan → calculator → answer',
    request: () => ({ agent: 'plan-execute', message: '1234 곱하기 5678은 얼마야?' }),
    answer: /7006652/,
    sources: 0,
  },
  {
    name: '000 contract-qa: 해지 조건 (evaluator satisfied at once)',
    request: ({ contractId }) => ({ agent: 'contract-qa', contract_id: contractId, message: '해지 조건이 뭐야?' }),
    answer: /30일 전/,
    sources: 1,
  },
];

/** The same scenarios asked in English (over the English contract and an English leave policy): English answers only. */
const SCENARIOS_EN: Scenario[] = [
  {
    name: '002 react (en): What is 6 times 7?',
    request: () => ({ agent: 'react', message: 'What is 6 times 7?' }),
    answer: /^6 × 7 = 42$/,
    sources: 0,
  },
  {
    name: '001 assistant (en): router → rag → answer',
    request: () => ({ agent: 'assistant', message: 'How many days of annual leave do I get after a year?' }),
    answer: /^Annual leave is 15 days\.$/,
    sources: 1,
  },
  {
    name: '003 supervisor (en): → rag_agent → answer',
    request: () => ({ agent: 'supervisor', message: 'How many days off do I get after joining?' }),
    answer: /^Annual leave is 15 days\.$/,
    sources: 1,
  },
  {
    name: '004 plan-execute (en): intent → plan → calculator → answer',
    request: () => ({ agent: 'plan-execute', message: 'What is 1234 times 5678?' }),
    answer: /^The result is 7006652\.$/,
    sources: 0,
  },
  {
    name: '000 contract-qa (en): termination (evaluator satisfied at once)',
    request: ({ contractIdEn }) => ({ agent: 'contract-qa', contract_id: contractIdEn, message: 'What are the termination conditions?' }),
    answer: /^According to the contract, at least 30 days' prior written notice\.$/,
    sources: 1,
  },
];

const MODES = [
  { tools: 'native', env: { LLM_TOOL_CALLING: 'native' }, refuse: false },
  { tools: 'prompt', env: { LLM_TOOL_CALLING: 'prompt' }, refuse: false },
  { tools: 'auto (vLLM refuses tools)', env: { LLM_TOOL_CALLING: 'auto' }, refuse: true },
] as const;
const JSON_MODES = [
  { json: 'on', env: { LLM_JSON_MODE: 'auto' } },
  { json: 'off', env: { LLM_JSON_MODE: 'off' } },
] as const;

const table = new Map<string, Map<string, string>>();

/** Each seed scenario × tool calling × JSON mode, against the plausible model: answer, sources, model calls. */
describe.each(MODES.flatMap((m) => JSON_MODES.map((j) => ({ ...m, ...j }))))('seed scenarios, tools $tools, JSON $json', (mode) => {
  const svc = useService(`matrix_${mode.tools.slice(0, 6)}_${mode.json}`, {
    env: { LLM_MODEL: `plausible-${mode.tools.slice(0, 6)}-${mode.json}`, LLM_MAX_RETRIES: '0', LLM_CACHE: 'false', ...mode.env },
    model: { resetEach: true },
  });
  const { model } = svc;
  let contractId: string;
  let contractIdEn: string;
  const column = `${mode.tools} / JSON ${mode.json}`;

  beforeAll(async () => {
    const contract = readFileSync(join(__dirname, '..', 'fixtures', 'contracts', 'service-agreement.md'), 'utf8');
    contractId = (await http(svc.url, 'POST', '/v1/contracts', { title: '용역계약서', content: contract })).body.contract_id;
    const english = readFileSync(join(__dirname, '..', 'fixtures', 'contracts', 'service-agreement-en.md'), 'utf8');
    contractIdEn = (await http(svc.url, 'POST', '/v1/contracts', { title: 'Services Agreement', content: english })).body.contract_id;
    await http(svc.url, 'POST', '/v1/documents', {
      title: 'Leave policy',
      content: '# Annual leave\n\nAnnual leave is 15 days after one year of service.',
      source: 'hr-en.md',
    });
    await http(svc.url, 'POST', '/v1/documents', {
      title: '휴가 규정',
      content: '# 연차\n\n연차 휴가는 입사 1년 후 15일이다.',
      source: 'hr.md',
    });
  });

  beforeEach(() => {
    if (mode.refuse) model.configure({ tools: 'refuse_vllm' });
    model.setResponder(plausibleModel);
  });

  it.each([...SCENARIOS, ...SCENARIOS_EN])('$name', async (scenario) => {
    const res = await http(svc.url, 'POST', '/v1/chat', scenario.request({ contractId, contractIdEn }));
    const correct = scenario.answer.test(res.body.response) && res.body.error === null;
    const cell = `${correct ? '✓' : '✗'} · ${res.body.sources?.length ?? 0} src · ${res.body.llm_calls} calls`;
    if (!table.has(scenario.name)) table.set(scenario.name, new Map());
    table.get(scenario.name)!.set(column, cell);
    expect(res.body.response).toMatch(scenario.answer);
    expect(res.body.error).toBeNull();
    expect(res.body.sources.length).toBeGreaterThanOrEqual(scenario.sources);
    expect(model.unexpected).toEqual([]);
  });
});

afterAll(() => {
  const columns = MODES.flatMap((m) => JSON_MODES.map((j) => `${m.tools} / JSON ${j.json}`));
  const rows = [...table.entries()].map(([name, cells]) => `| ${name} | ${columns.map((c) => cells.get(c) ?? '—').join(' | ')} |`);
  const head = `| scenario | ${columns.join(' | ')} |\n|---|${columns.map(() => '---').join('|')}|`;
  process.stdout.write(`\n${head}\n${rows.join('\n')}\n`);
});
