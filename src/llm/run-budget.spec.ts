import { InMemoryCache } from '@langchain/core/caches';
import { HumanMessage } from '@langchain/core/messages';

import { type RunContext, withRunContext } from '../core/run-context';
import { resetBreakers } from './circuit-breaker';
import { MeteredChatOpenAI } from './metered-chat-model';
import { isModelUnavailable, toModelUnavailable } from './model-errors';
import { BudgetExceededError, RunBudget } from './run-budget';
import { UsageCollector } from './usage-collector';

/** a graph run's context (core/run-context.ts) holding `parts` */
const runCtx = (parts: Partial<RunContext>) => withRunContext({ tenantId: 'default', runId: 'test-run', ...parts });

const limits = (l: Partial<RunBudget['limits']> = {}) => ({ modelCalls: 0, modelTokens: 0, toolCalls: 0, ...l });

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('RunBudget', () => {
  it('refuses the model call after the limit, with the budget, limit and use in a typed error', () => {
    const budget = new RunBudget(limits({ modelCalls: 2 }));
    budget.chargeModelCall();
    budget.chargeModelCall();
    const err = thrown(() => budget.chargeModelCall());
    expect(err).toBeInstanceOf(BudgetExceededError);
    expect(err).toMatchObject({ code: 'BUDGET_EXCEEDED', budget: 'model_calls', limit: 2, used: 2 });
    expect(budget.used.model_calls).toBe(2);
  });

  it('charges a whole batch of tool calls or none of it; the refusal aborts the run at its next charge', () => {
    const budget = new RunBudget(limits({ toolCalls: 3 }));
    expect(budget.tryChargeToolCalls(2)).toBe(true);
    expect(budget.tryChargeToolCalls(2)).toBe(false);
    expect(budget.used.tool_calls).toBe(2);
    expect(budget.exceeded).toMatchObject({ budget: 'tool_calls', limit: 3, used: 2 });
    // the node answering "not run" can still finish: the signal fires with the next charge
    expect(budget.signal.aborted).toBe(false);
    expect(budget.tryChargeToolCalls(1)).toBe(false);
    expect(thrown(() => budget.chargeModelCall())).toBe(budget.exceeded);
    expect(budget.signal.aborted).toBe(true);
  });

  it('ends on the call whose reported tokens go over the limit', () => {
    const budget = new RunBudget(limits({ modelTokens: 100 }));
    budget.chargeTokens(60);
    budget.chargeTokens(40); // exactly at the limit: still fine
    expect(thrown(() => budget.chargeTokens(1))).toMatchObject({ budget: 'model_tokens', limit: 100, used: 101 });
  });

  it('is final: aborts its signal with the error, and every later charge throws the same error', () => {
    const budget = new RunBudget(limits({ modelCalls: 1 }));
    budget.chargeModelCall();
    expect(budget.signal.aborted).toBe(false);
    const err = thrown(() => budget.chargeModelCall());
    expect(budget.signal.aborted).toBe(true);
    expect(budget.signal.reason).toBe(err);
    expect(budget.exceeded).toBe(err);
    expect(thrown(() => budget.chargeModelCall())).toBe(err);
    expect(thrown(() => budget.chargeTokens(1))).toBe(err);
    expect(budget.tryChargeToolCalls(1)).toBe(false);
    expect(thrown(() => budget.throwIfExceeded())).toBe(err);
  });

  it('treats 0 as unlimited', () => {
    const budget = new RunBudget(limits());
    for (let i = 0; i < 1000; i++) {
      budget.chargeModelCall();
      expect(budget.tryChargeToolCalls(3)).toBe(true);
      budget.chargeTokens(10_000);
    }
    expect(budget.used).toEqual({ model_calls: 1000, tool_calls: 3000, model_tokens: 10_000_000 });
    expect(budget.exceeded).toBeUndefined();
  });

  it('is found in configurable, and only there', () => {
    const budget = new RunBudget(limits());
    expect(RunBudget.of({ configurable: { ...runCtx({ budget: budget }) } })).toBe(budget);
    expect(RunBudget.of({ configurable: { run_context: { tenantId: 'default', runId: 'r', budget: { limits: {} } } } })).toBeUndefined();
    expect(RunBudget.of(undefined)).toBeUndefined();
  });

  it('is not a model failure: never mapped to MODEL_UNAVAILABLE', () => {
    const err = new BudgetExceededError('model_calls', 1, 1);
    expect(isModelUnavailable(err)).toBe(false);
    expect(toModelUnavailable(err)).toBe(err);
  });
});

/** An OpenAI-compatible endpoint in a `fetch`: counts requests, answers with fixed usage. */
function fakeEndpoint(usage = { prompt_tokens: 30, completion_tokens: 20 }) {
  const seen = { requests: 0 };
  const fetchFn: typeof fetch = async (_url, init) => {
    seen.requests += 1;
    if ((JSON.parse(String(init?.body)) as { stream?: boolean }).stream) return sseAnswer(`answer ${seen.requests}`, usage);
    const body = {
      id: `chatcmpl-${seen.requests}`,
      object: 'chat.completion',
      created: 0,
      model: 'fake',
      choices: [{ index: 0, message: { role: 'assistant', content: `answer ${seen.requests}` }, finish_reason: 'stop' }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    };
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { seen, fetchFn };
}

function sseAnswer(text: string, usage: { prompt_tokens: number; completion_tokens: number }): Response {
  const chunk = (delta: object, finish: string | null, extra: object = {}) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'fake', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
  const total = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
  const body = [
    chunk({ role: 'assistant', content: text }, null),
    chunk({}, 'stop'),
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'fake', choices: [], usage: total })}\n\n`,
    'data: [DONE]\n\n',
  ].join('');
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

describe('MeteredChatOpenAI with a run budget', () => {
  beforeEach(() => resetBreakers());

  const modelFor = (fetchFn: typeof fetch, cache?: InMemoryCache) =>
    new MeteredChatOpenAI({
      model: 'fake',
      apiKey: 'k',
      maxRetries: 0,
      configuration: { baseURL: `http://budget-${Math.random()}.test/v1`, fetch: fetchFn },
      ...(cache ? { cache } : {}),
    });
  const run = (budget: RunBudget, usage = new UsageCollector()) => ({ configurable: runCtx({ budget, usage }) });

  it('refuses the call over the model-call budget before it reaches the endpoint, and does not meter it', async () => {
    const { seen, fetchFn } = fakeEndpoint();
    const model = modelFor(fetchFn);
    const budget = new RunBudget(limits({ modelCalls: 2 }));
    const usage = new UsageCollector();
    await model.invoke([new HumanMessage('one')], run(budget, usage));
    await model.invoke([new HumanMessage('two')], run(budget, usage));
    await expect(model.invoke([new HumanMessage('three')], run(budget, usage))).rejects.toMatchObject({
      code: 'BUDGET_EXCEEDED',
      budget: 'model_calls',
    });
    expect(seen.requests).toBe(2);
    expect(usage.totals.calls).toBe(2);
    expect(usage.calls.every((c) => !c.error)).toBe(true);
    // not an endpoint failure: the breaker stays closed
    expect(model.circuitBreaker.state).toBe('closed');
  });

  it('does not charge LLM-cache hits', async () => {
    const { seen, fetchFn } = fakeEndpoint();
    const model = modelFor(fetchFn, new InMemoryCache());
    const budget = new RunBudget(limits({ modelCalls: 1 }));
    for (let i = 0; i < 3; i++) await model.invoke([new HumanMessage('same question')], run(budget));
    expect(seen.requests).toBe(1);
    expect(budget.used.model_calls).toBe(1);
    expect(budget.used.model_tokens).toBe(50);
  });

  it('charges the tokens the endpoint reports and ends the run on the call that goes over', async () => {
    const { seen, fetchFn } = fakeEndpoint({ prompt_tokens: 30, completion_tokens: 20 });
    const model = modelFor(fetchFn);
    const budget = new RunBudget(limits({ modelTokens: 120 }));
    const usage = new UsageCollector();
    await model.invoke([new HumanMessage('a')], run(budget, usage));
    await model.invoke([new HumanMessage('b')], run(budget, usage));
    await expect(model.invoke([new HumanMessage('c')], run(budget, usage))).rejects.toMatchObject({
      budget: 'model_tokens',
      limit: 120,
      used: 150,
    });
    // the call that went over was made and is metered; the next one is refused before the endpoint
    expect(usage.totals).toMatchObject({ calls: 3, promptTokens: 90, completionTokens: 60 });
    await expect(model.invoke([new HumanMessage('d')], run(budget, usage))).rejects.toBeInstanceOf(BudgetExceededError);
    expect(seen.requests).toBe(3);
  });

  it.each([
    ['token streaming', { lc_prefer_streaming: true, handleLLMNewToken: () => undefined }],
    ['chat-model stream events', { lc_prefer_chat_model_stream_events: true, handleChatModelStreamEvent: () => undefined }],
  ])('charges streamed calls too (%s)', async (_name, handler) => {
    const { seen, fetchFn } = fakeEndpoint();
    const model = new MeteredChatOpenAI({
      model: 'fake',
      apiKey: 'k',
      maxRetries: 0,
      streamUsage: true,
      configuration: { baseURL: `http://budget-${Math.random()}.test/v1`, fetch: fetchFn },
    });
    const budget = new RunBudget(limits({ modelCalls: 1 }));
    const options = { ...run(budget), callbacks: [handler] };
    const out = await model.invoke([new HumanMessage('stream me')], options);
    expect(out.text).toBe('answer 1');
    expect(budget.used).toMatchObject({ model_calls: 1, model_tokens: 50 });
    await expect(model.invoke([new HumanMessage('again')], options)).rejects.toBeInstanceOf(BudgetExceededError);
    expect(seen.requests).toBe(1);
  });

  it('without a budget in the config, calls are not limited', async () => {
    const { seen, fetchFn } = fakeEndpoint();
    const model = modelFor(fetchFn);
    for (let i = 0; i < 3; i++) await model.invoke([new HumanMessage(`q${i}`)]);
    expect(seen.requests).toBe(3);
  });
});
