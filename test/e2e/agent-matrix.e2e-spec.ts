import { createTestDatabase, type TestDatabase } from '../support/infra';
import { ScriptedModelServer } from '../support/model-server';
import {
  type JsonCell,
  type MatrixFixtures,
  runCell,
  SEED_SCENARIOS,
  startMatrixApp,
  type ToolCallingCell,
  uploadFixtures,
} from '../support/seed-scenarios';
import type { RunningApp } from '../support/test-app';

/**
 * A slice of the README's "Seed scenarios × tool calling × JSON mode" table (bench/agent-matrix.ts): the same
 * scenarios, the same model answering like a real one, the expected counts written out here.
 */
const scenario = (id: string) => SEED_SCENARIOS.find((s) => s.id === id)!;

/** scenario → [model calls, requests with response_format, requests carrying tools] per combination */
const EXPECTED: Record<string, Record<string, [number, number, number]>> = {
  'cqa-termination': { 'native/on': [2, 1, 0], 'prompt/off': [2, 0, 0], 'auto/on': [2, 1, 0] },
  // auto: the first request carries the tools, the endpoint refuses it (vLLM's 400), the agent retries in ReAct text
  'asst-calculator': { 'native/on': [2, 0, 2], 'prompt/off': [2, 0, 0], 'auto/on': [3, 0, 1] },
  'sup-walkthrough': { 'native/on': [4, 0, 2], 'prompt/off': [4, 0, 0], 'auto/on': [5, 0, 1] },
  'pe-3-steps': { 'native/on': [3, 2, 0], 'prompt/off': [3, 0, 0], 'auto/on': [3, 2, 0] },
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

  it.each(Object.keys(EXPECTED))('%s: right answer, its sources, the expected model calls', async (id) => {
    const s = scenario(id);
    const cell = await runCell(app, model, fixtures!, s, tools, json);
    expect({ answer: cell.answer, problem: cell.problem }).toEqual({ answer: cell.answer, problem: null });
    expect(cell.sources).toEqual(expect.arrayContaining(s.sources));
    if (s.sources.length) expect(cell.sources.length).toBeGreaterThan(0);
    const [calls, responseFormat, toolRequests] = EXPECTED[id][`${tools}/${json}`];
    expect({ llm_calls: cell.llmCalls, http_requests: cell.modelRequests, sent: cell.sent }).toEqual({
      llm_calls: calls,
      http_requests: calls,
      sent: { responseFormat, tools: toolRequests },
    });
  });
});
