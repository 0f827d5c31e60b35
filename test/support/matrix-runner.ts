import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { resetJsonModeMemory } from '../../src/llm/json-mode';
import { resetToolCallingMemory } from '../../src/llm/tool-binding';
import type { ScriptedModelServer } from './model-server';
import { plausibleModel } from './plausible-model';
import type { ChatBody, JsonCell, SeedScenario, ToolCallingCell } from './seed-scenarios';
import { chatOverSse } from './sse-chat';
import { http, type RunningApp, startApp } from './test-app';

/**
 * Runs one seed scenario under one combination of tool calling × JSON mode against a ScriptedModelServer answering
 * like a real model (plausibleModel), and records what the README's matrix shows. Used by bench/agent-matrix.ts and
 * test/e2e/agent-matrix.e2e-spec.ts.
 */
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
  /** the English contract (service-agreement-en.md), for the English scenarios */
  contractIdEn: string;
}

/** The contract and the knowledge-base documents the scenarios ask about (once per database). */
export async function uploadFixtures(app: RunningApp): Promise<MatrixFixtures> {
  const contract = readFileSync(join(repoRoot(), 'test', 'fixtures', 'contracts', 'service-agreement.md'), 'utf8');
  const up = await http(app.url, 'POST', '/v1/contracts', { title: '소프트웨어 유지보수 용역계약서', content: contract });
  if (up.status !== 201) throw new Error(`contract upload failed: ${up.status} ${JSON.stringify(up.body)}`);
  const english = readFileSync(join(repoRoot(), 'test', 'fixtures', 'contracts', 'service-agreement-en.md'), 'utf8');
  const upEn = await http(app.url, 'POST', '/v1/contracts', { title: 'Software Maintenance Services Agreement', content: english });
  if (upEn.status !== 201) throw new Error(`English contract upload failed: ${upEn.status} ${JSON.stringify(upEn.body)}`);
  for (const doc of ENGLISH_DOCUMENTS) await http(app.url, 'POST', '/v1/documents', doc);
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
  return { contractId: up.body.contract_id, contractIdEn: upEn.body.contract_id };
}

/** The knowledge-base documents the English scenarios ask about (the Korean ones' facts, in English). */
const ENGLISH_DOCUMENTS = [
  { title: 'Leave policy', content: '# Vacation policy\n\nAnnual leave is 15 days after one year of service.', source: 'hr-en.md' },
  {
    title: 'Travel rules',
    content: '# Travel allowance\n\nThe daily allowance for domestic work travel is KRW 30,000 per day.',
    source: 'travel-en.md',
  },
  {
    title: 'About LangGraph',
    content: 'LangGraph is a library for building agents as state graphs. Nodes and edges define the flow. A checkpointer saves the state.',
    source: 'langgraph-en.md',
  },
];

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
  const contractId = scenario.contract === 'en' ? fixtures.contractIdEn : fixtures.contractId;
  const extra = scenario.agent === 'contract-qa' ? { contract_id: contractId } : {};
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
