import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { resetJsonModeMemory } from '../../src/llm/json-mode';
import { resetToolCallingMemory } from '../../src/llm/tool-binding';
import type { ScriptedModelServer } from './model-server';
import { plausibleModel } from './plausible-model';
import { chatOverSse } from './sse-chat';
import { http, type RunningApp, startApp } from './test-app';

/**
 * The seed scenarios of the five agents, each with a check on the answer, run under one combination of tool
 * calling × JSON mode against a ScriptedModelServer answering like a real model (plausibleModel). Shared by
 * bench/agent-matrix.ts (the README table) and test/e2e/agent-matrix.e2e-spec.ts (a slice of it in CI).
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
}

const has =
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

export interface CellResult {
  scenario: SeedScenario;
  tools: ToolCallingCell;
  json: JsonCell;
  correct: boolean;
  problem: string | null;
  sources: string[];
  llmCalls: number;
  /** chat requests the model server received (refused ones included) */
  modelRequests: number;
  error: string | null;
  /** the response text */
  answer: string;
  /** the graph node of each model call (the run's trace), `!` marking a failed call */
  nodes: string[];
  /** streamed turns: the `token` events joined (what a streaming client shows) */
  tokens?: string;
  /** the refs the scenario expects in the sources that are missing */
  sourcesMissing: string[];
  /** what the endpoint was sent: requests with a response_format, requests carrying native `tools` */
  sent: { responseFormat: number; tools: number };
}

/** One app per (tool calling, JSON mode) combination (the endpoint's behaviour is set per cell by runCell). */
export async function startMatrixApp(
  model: ScriptedModelServer,
  dbUrl: string,
  tools: ToolCallingCell,
  json: JsonCell,
): Promise<RunningApp> {
  return startApp({
    DATABASE_URL: dbUrl,
    LLM_BASE_URL: model.baseUrl,
    LLM_MODEL: `matrix-${tools}-${json}`,
    LLM_MAX_RETRIES: '0',
    LLM_CACHE: 'false',
    LLM_TOOL_CALLING: tools,
    LLM_JSON_MODE: json === 'off' ? 'off' : 'auto',
    MAX_CONTRACT_CHARS: '100000',
  });
}

export interface MatrixFixtures {
  contractId: string;
}

/** The contract and the knowledge-base documents the scenarios ask about (once per database). */
export async function uploadFixtures(app: RunningApp): Promise<MatrixFixtures> {
  const contract = readFileSync(join(repoRoot(), 'test', 'fixtures', 'contracts', 'service-agreement.md'), 'utf8');
  const up = await http(app.url, 'POST', '/v1/contracts', { title: '소프트웨어 유지보수 용역계약서', content: contract });
  if (up.status !== 201) throw new Error(`contract upload failed: ${up.status} ${JSON.stringify(up.body)}`);
  await http(app.url, 'POST', '/v1/documents', {
    title: '휴가 규정',
    content: '# 연차\n\n연차 휴가는 입사 1년 후 15일이다.',
    source: 'hr.md',
  });
  await http(app.url, 'POST', '/v1/documents', {
    title: '출장 규정',
    content: '# 출장비\n\n국내 출장 일비는 하루 3만 원이다.',
    source: 'travel.md',
  });
  await http(app.url, 'POST', '/v1/documents', {
    title: 'LangGraph 소개',
    content: 'LangGraph는 상태 그래프로 에이전트를 만드는 라이브러리다. 노드와 엣지로 흐름을 정의한다. 체크포인터로 상태를 저장한다.',
    source: 'langgraph.md',
  });
  return { contractId: up.body.contract_id };
}

/** Runs one scenario on a fresh process memory (no tool refusal or JSON-mode downgrade learnt before). */
export async function runCell(
  app: RunningApp,
  model: ScriptedModelServer,
  fixtures: MatrixFixtures,
  scenario: SeedScenario,
  tools: ToolCallingCell,
  json: JsonCell,
  opts: { stream?: boolean } = {},
): Promise<CellResult> {
  resetToolCallingMemory();
  resetJsonModeMemory();
  model.reset();
  // auto: refused like vLLM (JSON on) or like Ollama (JSON off), so both refusals are covered
  if (tools === 'auto') model.configure({ tools: json === 'off' ? 'refuse_ollama' : 'refuse_vllm' });
  if (tools === 'prompt') model.configure({ tools: 'refuse_vllm' }); // prompt mode must never send tools
  // streamed turns: the server sends one token per SSE chunk, as real servers do
  if (opts.stream) model.configure({ tokenPerChunk: true });
  model.setResponder(plausibleModel({ ignoreResponseFormat: json === 'ignored' }));
  const extra = scenario.agent === 'contract-qa' ? { contract_id: fixtures.contractId } : {};
  const request = { agent: scenario.agent, message: scenario.message, ...extra };
  const res = opts.stream ? await chatOverSse<ChatBody>(app.url, request) : await http<ChatBody>(app.url, 'POST', '/v1/chat', request);
  const body = res.body;
  const refs = (body.sources ?? []).map((s) => s.ref);
  const trace = await http<{ model_calls?: Array<{ node: string; error?: string }> }>(
    app.url,
    'GET',
    `/v1/sessions/${body.session_id}/runs/${body.run_id}/trace`,
  );
  const nodes = (trace.body.model_calls ?? []).map((c) => `${c.node}${c.error ? '!' : ''}`);
  const sourcesMissing = scenario.sources.filter((r) => !refs.includes(r));
  const sent = {
    responseFormat: model.responseFormats.filter((f) => f !== 'none').length,
    tools: model.requests.filter((r) => r.tools?.length).length,
  };
  const problems = [
    res.status !== 200 ? `HTTP ${res.status}` : null,
    body.error ? `error ${body.error.code}` : null,
    scenario.check(body),
    model.unexpected.length ? `${model.unexpected.length} unscripted model request(s)` : null,
    ...shapeProblems(sent, tools, json),
  ].filter((p): p is string => p !== null);
  return {
    scenario,
    tools,
    json,
    correct: problems.length === 0,
    problem: problems.join('; ') || null,
    sources: refs,
    llmCalls: body.llm_calls,
    modelRequests: model.callCount,
    error: body.error?.code ?? null,
    answer: String(body.response ?? ''),
    sent,
    nodes,
    sourcesMissing,
    ...('tokens' in res ? { tokens: res.tokens } : {}),
  };
}

/** Requests the combination must never send: tools in prompt mode, response_format with JSON mode off. */
function shapeProblems(sent: CellResult['sent'], tools: ToolCallingCell, json: JsonCell): string[] {
  return [
    tools === 'prompt' && sent.tools ? `prompt mode sent tools ${sent.tools} time(s)` : null,
    tools === 'auto' && sent.tools > 1 ? `auto sent tools ${sent.tools} times after the refusal` : null,
    json === 'off' && sent.responseFormat ? `JSON mode off sent response_format ${sent.responseFormat} time(s)` : null,
  ].filter((p): p is string => p !== null);
}

/** The checkout's root (this file runs from test/support, or compiled from build/bench/test/support). */
export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'test', 'fixtures'))) {
    if (dirname(dir) === dir) throw new Error(`no checkout above ${__dirname}`);
    dir = dirname(dir);
  }
  return dir;
}
