import { createTestDatabase, type TestDatabase } from '../support/infra';
import { type MatrixFixtures, runCell, startMatrixApp, uploadFixtures } from '../support/matrix-runner';
import { ScriptedModelServer } from '../support/model-server';
import { type JsonCell, SEED_SCENARIOS, type SeedScenario, type ToolCallingCell } from '../support/seed-scenarios';
import { englishProblem, SEED_SCENARIOS_EN } from '../support/seed-scenarios-en';
import type { RunningApp } from '../support/test-app';

/**
 * A slice of the README's "Seed scenarios × tool calling × JSON mode" table (bench/agent-matrix.ts): the same
 * scenarios, the same model answering like a real one, the expected counts written out here.
 */
const scenario = (id: string) => SEED_SCENARIOS.find((s) => s.id === id)!;
/** the same scenario asked in English (seed-scenarios-en.ts) */
const inEnglish = (id: string) => SEED_SCENARIOS_EN.find((s) => s.koId === id)!;

type Expected = { nodes: unknown[]; responseFormat: number; tools: number };
/** a call of the supervisor's sub-agent (whatever its graph names the node), and a failed one */
const SUB = expect.stringMatching(/^(?!supervisor_route)[\w-]+$/);
const SUB_REFUSED = expect.stringMatching(/^(?!supervisor_route)[\w-]+!$/);
const SUPERVISOR = ['supervisor_route', SUB, SUB, 'supervisor_route'];

/**
 * scenario → per combination: the graph node of each model call (`!` = failed call), requests with a
 * response_format, requests carrying native tools. `auto`: the first tool request is refused (vLLM's 400),
 * counted as a failed call, and retried in the ReAct text format; no tools are sent after that.
 */
const EXPECTED: Record<string, Record<string, Expected>> = {
  'cqa-termination': {
    'native/on': { nodes: ['evaluator', 'respond'], responseFormat: 1, tools: 0 },
    'prompt/off': { nodes: ['evaluator', 'respond'], responseFormat: 0, tools: 0 },
    'auto/on': { nodes: ['evaluator', 'respond'], responseFormat: 1, tools: 0 },
  },
  'asst-calculator': {
    'native/on': { nodes: ['agent', 'agent'], responseFormat: 0, tools: 2 },
    'prompt/off': { nodes: ['agent', 'agent'], responseFormat: 0, tools: 0 },
    'auto/on': { nodes: ['agent!', 'agent', 'agent'], responseFormat: 0, tools: 1 },
  },
  'sup-walkthrough': {
    'native/on': { nodes: SUPERVISOR, responseFormat: 0, tools: 2 },
    'prompt/off': { nodes: SUPERVISOR, responseFormat: 0, tools: 0 },
    'auto/on': { nodes: ['supervisor_route', SUB_REFUSED, SUB, SUB, 'supervisor_route'], responseFormat: 0, tools: 1 },
  },
  // the summarize step's own model call is metered under `executor`; the answer cites the searched document
  'pe-search-summarize': {
    'native/on': { nodes: ['intent_classifier', 'planner', 'executor', 'final_answer'], responseFormat: 2, tools: 0 },
    'prompt/off': { nodes: ['intent_classifier', 'planner', 'executor', 'final_answer'], responseFormat: 0, tools: 0 },
    'auto/on': { nodes: ['intent_classifier', 'planner', 'executor', 'final_answer'], responseFormat: 2, tools: 0 },
  },
  'pe-3-steps': {
    'native/on': { nodes: ['intent_classifier', 'planner', 'final_answer'], responseFormat: 2, tools: 0 },
    'prompt/off': { nodes: ['intent_classifier', 'planner', 'final_answer'], responseFormat: 0, tools: 0 },
    'auto/on': { nodes: ['intent_classifier', 'planner', 'final_answer'], responseFormat: 2, tools: 0 },
  },
};

const model = new ScriptedModelServer();
let db: TestDatabase;
let fixtures: MatrixFixtures | undefined;

beforeAll(async () => {
  await model.start();
  db = await createTestDatabase('agent_matrix');
});

afterAll(async () => {
  await model.stop();
  await db?.drop();
});

describe.each([
  ['native', 'on'],
  ['prompt', 'off'],
  ['auto', 'on'],
] as Array<[ToolCallingCell, JsonCell]>)('seed scenarios with %s tool calling, JSON mode %s', (tools, json) => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startMatrixApp(model, db.url, tools, json);
    fixtures ??= await uploadFixtures(app);
  });

  afterAll(async () => {
    await app?.close();
  });

  it.each(
    Object.keys(EXPECTED).flatMap((id) => [
      [id, 'Korean'],
      [id, 'English'],
    ]),
  )('%s in %s: right answer, its sources, the expected model calls', async (id, language) => {
    const s: SeedScenario = language === 'English' ? inEnglish(id) : scenario(id);
    const cell = await runCell(app, model, fixtures!, s, tools, json);
    const problem = cell.problem ?? (language === 'English' ? englishProblem(cell.answer) : null);
    expect({ answer: cell.answer, problem }).toEqual({ answer: cell.answer, problem: null });
    expect(cell.sources).toEqual(expect.arrayContaining(s.sources));
    expect(cell.sourcesMissing).toEqual([]);
    if (s.sources.length) expect(cell.sources.length).toBeGreaterThan(0);
    const want = EXPECTED[id][`${tools}/${json}`];
    expect({ llm_calls: cell.llmCalls, http_requests: cell.modelRequests, nodes: cell.nodes, sent: cell.sent }).toEqual({
      llm_calls: want.nodes.length,
      http_requests: want.nodes.length,
      nodes: want.nodes,
      sent: { responseFormat: want.responseFormat, tools: want.tools },
    });
  });
});

/** Every seed scenario asked in English: the same correctness as in Korean (bench/agent-matrix.ts runs the Korean ones). */
describe('every seed scenario in English (native tool calling, JSON mode on)', () => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startMatrixApp(model, db.url, 'native', 'on');
    fixtures ??= await uploadFixtures(app);
  });

  afterAll(async () => {
    await app?.close();
  });

  it.each(SEED_SCENARIOS_EN.map((s) => [s.id, s] as const))('%s: right answer in English, its sources', async (_id, s) => {
    const cell = await runCell(app, model, fixtures!, s, 'native', 'on');
    expect({ answer: cell.answer, problem: cell.problem ?? englishProblem(cell.answer) }).toEqual({ answer: cell.answer, problem: null });
    expect(cell.sourcesMissing).toEqual([]);
    expect(cell.nodes.every((n) => !n.endsWith('!'))).toBe(true);
  });
});
