import { createTestDatabase, type TestDatabase } from '../support/infra';
import { type ChatRequest, ScriptedModelServer } from '../support/model-server';
import { chatOverSse } from '../support/sse-chat';
import { http, type RunningApp, startApp, waitFor } from '../support/test-app';

/**
 * Per-run budgets end to end: the real app, real Postgres, the real model client against the scripted server.
 * A model that never stops asking for the calculator is stopped by the budget (not by the agent), the run
 * ends `failed` with BUDGET_EXCEEDED and its usage, and the session's next turn works.
 */
describe('per-run budgets over HTTP', () => {
  const model = new ScriptedModelServer();
  let db: TestDatabase;
  let baseEnv: Record<string, string>;

  beforeAll(async () => {
    const baseUrl = await model.start();
    db = await createTestDatabase('budgets');
    baseEnv = {
      DATABASE_URL: db.url,
      LLM_BASE_URL: baseUrl,
      LLM_MODEL: 'scripted-model',
      LLM_API_KEY: 'test',
      LLM_MAX_RETRIES: '0',
      LLM_TIMEOUT_MS: '5000',
      LLM_CACHE: 'false', // every model call reaches the server: the counts are exact
      MAX_ITERATIONS: '10', // the agent's own limit is not what stops these runs
    };
  });

  afterAll(async () => {
    await model.stop();
    await db?.drop();
  });

  beforeEach(() => model.reset());

  /** the model asks for the calculator on every call, forever */
  const calculateForever = () => model.setResponder(() => ({ toolCalls: [{ name: 'calculator', args: { expression: '1+1' } }] }));
  /** tool results the model was sent in its requests (each tool call's result once) */
  const toolResultsSeen = (requests: ChatRequest[]) =>
    new Set(requests.flatMap((r) => r.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id))).size;

  async function nextTurnWorks(svc: RunningApp, sessionId: string): Promise<void> {
    model.reset();
    model.enqueue({ content: 'Hello again!' });
    const res = await http(svc.url, 'POST', '/v1/chat', { message: 'Just say hello', session_id: sessionId });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ session_id: sessionId, response: 'Hello again!', error: null, llm_calls: 1 });
    // the history the model gets is well formed: every tool call it made has its result
    const messages = model.requests[0].messages;
    const answered = new Set(messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id));
    const asked = messages.flatMap((m) => (m.tool_calls ?? []).map((c: { id: string }) => c.id));
    expect(asked.filter((id) => !answered.has(id))).toEqual([]);
  }

  describe('RUN_MAX_TOOL_CALLS=3', () => {
    let svc: RunningApp;
    beforeAll(async () => (svc = await startApp({ ...baseEnv, RUN_MAX_TOOL_CALLS: '3' })));
    afterAll(async () => svc?.close());

    it('stops a model that calls the calculator forever after exactly 3 tool executions', async () => {
      calculateForever();
      const res = await http(svc.url, 'POST', '/v1/chat', { message: 'Keep calculating forever', agent: 'react' });
      expect(res.status).toBe(200);
      expect(res.body.error).toEqual({
        code: 'BUDGET_EXCEEDED',
        message: expect.stringMatching(/tool_calls.*limit 3/),
        budget: 'tool_calls',
        limit: 3,
        used: 3,
      });
      expect(res.body.response).toBe('The request used up its budget of model or tool calls and was stopped.'); // an English message: English only
      expect(res.body.tool_calls).toEqual(Array(3).fill({ name: 'calculator', args: { expression: '1+1' }, status: 'success' }));
      // the 4th request asked for a 4th calculation, which was refused: the model was sent 3 results
      expect(model.callCount).toBe(4);
      expect(toolResultsSeen(model.requests)).toBe(3);
      expect(res.body.llm_calls).toBe(4);

      const trace = await http(svc.url, 'GET', `/v1/sessions/${res.body.session_id}/runs/${res.body.run_id}/trace`);
      expect(trace.body).toMatchObject({
        status: 'failed',
        tool_history: Array(3).fill(expect.objectContaining({ name: 'calculator', status: 'success' })),
        budget: { limits: { toolCalls: 3 }, used: { tool_calls: 3, model_calls: 4 }, exceeded: 'tool_calls' },
        usage: { llm_calls: 4 },
      });
      expect(trace.body.model_calls).toHaveLength(4);
      expect(trace.body.usage.prompt_tokens).toBeGreaterThan(0);

      await nextTurnWorks(svc, res.body.session_id);
    });
  });

  describe('RUN_MAX_MODEL_CALLS=2 (queued job)', () => {
    let svc: RunningApp;
    beforeAll(async () => (svc = await startApp({ ...baseEnv, RUN_MAX_MODEL_CALLS: '2' })));
    afterAll(async () => svc?.close());

    it('refuses the third call before it reaches the endpoint; the job ends failed with the error', async () => {
      calculateForever();
      const sub = await http(svc.url, 'POST', '/v1/jobs', { message: 'Keep calculating forever', agent: 'react' });
      expect(sub.status).toBe(202);
      const job = await waitFor(async () => {
        const r = await http(svc.url, 'GET', `/v1/jobs/${sub.body.job_id}`);
        return ['completed', 'failed', 'cancelled'].includes(r.body.status) ? r.body : undefined;
      });
      expect(job.status).toBe('failed');
      expect(job.error).toMatchObject({ code: 'BUDGET_EXCEEDED', budget: 'model_calls', limit: 2, used: 2 });
      expect(job.result).toMatchObject({ llm_calls: 2, error: { code: 'BUDGET_EXCEEDED' } });
      expect(model.callCount).toBe(2);
      // the two answered calls each ran their calculation
      expect(job.result.tool_calls).toHaveLength(2);

      await nextTurnWorks(svc, sub.body.session_id);
    });

    it('charges streamed model calls too (POST /v1/chat/stream: tokens streamed from the endpoint)', async () => {
      calculateForever();
      const res = await chatOverSse<{ llm_calls: number; error: { code: string } | null }>(svc.url, {
        message: 'Keep calculating forever',
        agent: 'react',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ llm_calls: 2, error: { code: 'BUDGET_EXCEEDED' } });
      expect(model.callCount).toBe(2);
      expect(model.requests.every((r) => r.stream === true)).toBe(true);
    });
  });

  describe('RUN_MAX_MODEL_TOKENS', () => {
    const LIMIT = 300;
    let svc: RunningApp;
    beforeAll(async () => (svc = await startApp({ ...baseEnv, RUN_MAX_MODEL_TOKENS: String(LIMIT) })));
    afterAll(async () => svc?.close());

    it('stops after the endpoint reports usage over the limit, with no call after it', async () => {
      calculateForever();
      const res = await http(svc.url, 'POST', '/v1/chat', { message: 'Keep calculating forever', agent: 'react' });
      expect(res.status).toBe(200);
      expect(res.body.error).toMatchObject({ code: 'BUDGET_EXCEEDED', budget: 'model_tokens', limit: LIMIT });

      const trace = await http(svc.url, 'GET', `/v1/sessions/${res.body.session_id}/runs/${res.body.run_id}/trace`);
      expect(trace.body.status).toBe('failed');
      const perCall: number[] = trace.body.model_calls.map(
        (c: { prompt_tokens: number; completion_tokens: number }) => c.prompt_tokens + c.completion_tokens,
      );
      const total = perCall.reduce((a, b) => a + b, 0);
      // over the limit only with the last call; every call the server answered is metered, none came after
      expect(perCall.length).toBeGreaterThanOrEqual(2);
      expect(total).toBeGreaterThan(LIMIT);
      expect(total - perCall[perCall.length - 1]).toBeLessThanOrEqual(LIMIT);
      expect(res.body.error.used).toBe(total);
      expect(model.callCount).toBe(perCall.length);
      expect(trace.body.usage.prompt_tokens + trace.body.usage.completion_tokens).toBe(total);

      await nextTurnWorks(svc, res.body.session_id);
    });
  });
});
