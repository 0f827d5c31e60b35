import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';

import { runInTenant } from '../../src/auth/tenant';
import { AppConfig } from '../../src/config/app-config';
import { type RunContext, withRunContext } from '../../src/core/run-context';
import { breakerStates, resetBreakers } from '../../src/llm/circuit-breaker';
import { decideJson } from '../../src/llm/decide-json';
import { resetJsonModeMemory } from '../../src/llm/json-mode';
import { LlmService } from '../../src/llm/llm.service';
import { ModelUnavailableError } from '../../src/llm/model-errors';
import { bindToolsForMode, resetToolCallingMemory } from '../../src/llm/tool-binding';
import { UsageCollector } from '../../src/llm/usage-collector';
import { ScriptedModelServer } from '../support/model-server';
import { waitFor } from '../support/test-app';

/** a graph run's context (core/run-context.ts) holding `parts` */
const runCtx = (parts: Partial<RunContext>) => withRunContext({ tenantId: 'default', runId: 'test-run', ...parts });

/**
 * The real model client (@langchain/openai via LlmService) against the scripted server behaving like real
 * endpoints: JSON mode accepted or rejected, tools refused like vLLM / Ollama, a 500 storm, retry-after.
 */
const Verdict = z.object({ is_valid: z.boolean(), reason: z.string() });
const ask = [new SystemMessage('질문 분류 전문가입니다. JSON 형식으로만 응답하세요.'), new HumanMessage('김치찌개 끓이는 법')];
const calculator = tool(async ({ expression }: { expression: string }) => expression, {
  name: 'calculator',
  description: 'Evaluates arithmetic.',
  schema: z.object({ expression: z.string() }),
});
const tools = [calculator];

function service(baseUrl: string, env: Record<string, string> = {}): LlmService {
  return new LlmService(
    new AppConfig({
      LLM_BASE_URL: baseUrl,
      LLM_MODEL: 'scripted',
      LLM_MAX_RETRIES: '1',
      LLM_TIMEOUT_MS: '2000',
      LLM_CACHE: 'false',
      ...env,
    }),
  );
}

describe('model client: JSON mode, tool-calling auto, breaker', () => {
  const server = new ScriptedModelServer();
  let baseUrl: string;

  beforeAll(async () => {
    baseUrl = await server.start();
  });
  afterAll(() => server.stop());
  beforeEach(() => {
    server.reset();
    resetBreakers();
    resetJsonModeMemory();
    resetToolCallingMemory();
  });

  describe('decideJson', () => {
    it('sends json_schema built from the zod schema, reads the answer, and meters it under the node', async () => {
      server.enqueue({ json: { is_valid: false, reason: '요리 질문' }, wrap: 'prose' });
      const usage = new UsageCollector();
      const model = service(baseUrl).chatModel()!;
      const out = await decideJson(model, ask, Verdict, {
        node: 'scope_validator',
        config: { configurable: { ...runCtx({ usage: usage }) } },
      });
      expect(out).toMatchObject({ ok: true, value: { is_valid: false, reason: '요리 질문' }, mode: 'json_schema' });
      const format = server.requests[0].response_format as { type: string; json_schema: { name: string; schema: { properties: object } } };
      expect(format.type).toBe('json_schema');
      expect(format.json_schema.name).toBe('scope_validator');
      expect(Object.keys(format.json_schema.schema.properties)).toEqual(['is_valid', 'reason']);
      expect(usage.calls).toEqual([expect.objectContaining({ node: 'scope_validator', prompt_tokens: expect.any(Number) })]);
      expect(usage.calls[0].error).toBeUndefined();
    });

    it('auto: an endpoint rejecting both JSON modes ends in prose mode, and fenced JSON is read', async () => {
      server.configure({ responseFormat: { json_schema: 'reject', json_object: 'reject' } });
      server.enqueue({ json: { is_valid: true, reason: 'a' }, wrap: 'fence' }, { json: { is_valid: true, reason: 'b' }, wrap: 'prose' });
      const model = service(baseUrl).chatModel()!;
      await expect(decideJson(model, ask, Verdict, { node: 'n' })).resolves.toMatchObject({
        ok: true,
        value: { reason: 'a' },
        mode: 'off',
      });
      expect(server.responseFormats).toEqual(['json_schema', 'json_object', 'none']);
      // remembered for this endpoint: the next decision goes straight to prose
      await expect(decideJson(model, ask, Verdict, { node: 'n' })).resolves.toMatchObject({ ok: true, value: { reason: 'b' } });
      expect(server.responseFormats).toEqual(['json_schema', 'json_object', 'none', 'none']);
      expect(server.unexpected).toHaveLength(0);
    });

    it('an endpoint that accepts json_schema but answers in prose is read leniently, with one request', async () => {
      // e.g. a server that ignores response_format, or an enforcing one cut off by max_tokens: the OpenAI SDK's
      // strict parse() would throw on this text and the decision would end as MODEL_UNAVAILABLE
      server.enqueue({ content: 'Sure! Here is my decision: {"is_valid": true, "reason": "요리"} Hope this helps.' });
      const usage = new UsageCollector();
      const out = await decideJson(service(baseUrl).chatModel()!, ask, Verdict, {
        node: 'scope_validator',
        config: { configurable: { ...runCtx({ usage: usage }) } },
      });
      expect(out).toMatchObject({ ok: true, value: { is_valid: true, reason: '요리' }, mode: 'json_schema' });
      expect(server.callCount).toBe(1);
      expect(server.responseFormats).toEqual(['json_schema']);
      expect(usage.calls).toHaveLength(1);
      expect(usage.calls[0].error).toBeUndefined();
    });

    it('auto: an endpoint rejecting json_schema only is used in json_object mode', async () => {
      server.configure({ responseFormat: { json_schema: 'reject' } });
      server.enqueue({ json: { is_valid: true, reason: 'obj' }, wrap: 'prose' });
      const out = await decideJson(service(baseUrl).chatModel()!, ask, Verdict, { node: 'n' });
      expect(out).toMatchObject({ ok: true, mode: 'json_object', raw: '{"is_valid":true,"reason":"obj"}' });
      expect(server.responseFormats).toEqual(['json_schema', 'json_object']);
    });

    it('LLM_JSON_MODE=off sends no response_format; an unparseable answer is re-asked once', async () => {
      server.enqueue({ content: '네, 범위 밖입니다.' }, { json: { is_valid: false, reason: 'retry' }, wrap: 'prose' });
      const model = service(baseUrl, { LLM_JSON_MODE: 'off' }).chatModel()!;
      await expect(decideJson(model, ask, Verdict, { node: 'n' })).resolves.toMatchObject({
        ok: true,
        value: { reason: 'retry' },
        mode: 'off',
      });
      expect(server.responseFormats).toEqual(['none', 'none']);
      const second = server.requests[1].messages;
      expect(second.at(-2)).toMatchObject({ role: 'assistant', content: '네, 범위 밖입니다.' });
      expect(second.at(-1)?.content).toMatch(/JSON/);
    });

    it('works when the call streams (as inside a graph streaming tokens), one token per chunk', async () => {
      server.configure({ tokenPerChunk: true });
      server.enqueue({ json: { is_valid: true, reason: 'streamed reply' } });
      const tokens: string[] = [];
      const handler = { lc_prefer_streaming: true, handleLLMNewToken: (t: string) => void tokens.push(t) };
      const out = await decideJson(service(baseUrl).chatModel()!, ask, Verdict, { node: 'n', config: { callbacks: [handler] } });
      expect(out).toMatchObject({ ok: true, value: { reason: 'streamed reply' } });
      expect(server.requests[0].stream).toBe(true);
      expect(server.responseFormats).toEqual(['json_schema']);
      expect(tokens.filter(Boolean).length).toBeGreaterThan(5);
    });

    it('keeps the LLM cache working: a repeated decision is answered from the cache and metered as cached', () =>
      // a run's model calls happen inside its tenant (the cache is kept per tenant; none outside one)
      runInTenant('default', async () => {
        server.enqueue({ json: { is_valid: true, reason: 'once' } });
        const model = service(baseUrl, { LLM_CACHE: 'true' }).chatModel()!;
        const usage = new UsageCollector();
        const config = { configurable: { ...runCtx({ usage: usage }) } };
        await decideJson(model, ask, Verdict, { node: 'n', config });
        await expect(decideJson(model, ask, Verdict, { node: 'n', config })).resolves.toMatchObject({
          ok: true,
          value: { reason: 'once' },
        });
        expect(server.callCount).toBe(1);
        expect(usage.calls.map((c) => Boolean(c.cached))).toEqual([false, true]);
      }));
  });

  describe('LLM_TOOL_CALLING=auto', () => {
    it.each([['refuse_vllm' as const], ['refuse_ollama' as const]])(
      'an endpoint that refuses tools (%s) is switched to the ReAct format, retried once, and remembered',
      async (refusal) => {
        server.configure({ tools: refusal });
        server.enqueue(
          { content: 'Thought: 계산\nAction: calculator\nAction Input: {"expression": "6*7"}' },
          { content: 'Final Answer: 42' },
        );
        const llm = service(baseUrl);
        expect(llm.toolCallingFor('react')).toBe('auto');
        const bound = bindToolsForMode(llm.chatModel()!, tools, llm.toolCallingFor('react'));
        const first = (await bound.invoke([new HumanMessage('6*7?')])) as AIMessage;
        expect(first.tool_calls?.[0]).toMatchObject({ name: 'calculator', args: { expression: '6*7' } });
        expect(server.requests.map((r) => Boolean(r.tools?.length))).toEqual([true, false]);
        const second = await bound.invoke([new HumanMessage('thanks')]);
        expect(second.content).toBe('42');
        expect(server.requests.map((r) => Boolean(r.tools?.length))).toEqual([true, false, false]);
      },
    );

    it('keeps native tool calls on an endpoint that takes them', async () => {
      server.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '1+1' } }] });
      const llm = service(baseUrl);
      const out = (await bindToolsForMode(llm.chatModel()!, tools, 'auto').invoke([new HumanMessage('1+1?')])) as AIMessage;
      expect(out.tool_calls?.[0]).toMatchObject({ name: 'calculator' });
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0].tools).toHaveLength(1);
    });
  });

  describe('faults', () => {
    it('a 429 with retry-after is retried after the time asked for', async () => {
      server.enqueue({ fault: 'http_429', retryAfterSeconds: 1 }, { content: 'after waiting' });
      const t0 = Date.now();
      const out = await service(baseUrl)
        .chatModel()!
        .invoke([new HumanMessage('hi')]);
      expect(out.content).toBe('after waiting');
      expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
      expect(server.callCount).toBe(2);
    });

    it('a 500 storm opens the breaker: calls then fail fast and typed, and a probe after the cool-down closes it', async () => {
      server.setResponder(() => ({ fault: 'http_500' }));
      const llm = service(baseUrl, { LLM_MAX_RETRIES: '0', LLM_BREAKER_FAILURES: '3', LLM_BREAKER_COOLDOWN_MS: '400' });
      const model = llm.chatModel()!;
      for (let i = 0; i < 3; i++) await expect(model.invoke([new HumanMessage(`call ${i}`)])).rejects.toThrow(/500/);
      expect(server.callCount).toBe(3);
      expect(breakerStates()).toEqual([expect.objectContaining({ endpoint: baseUrl, state: 'open', consecutiveFailures: 3 })]);
      expect(llm.breakerState()).toMatchObject({ state: 'open', retryAt: expect.any(Number) });

      const t0 = Date.now();
      const err = await decideJson(model, ask, Verdict, { node: 'n' }).catch((e: unknown) => e);
      expect(Date.now() - t0).toBeLessThan(100);
      expect(err).toBeInstanceOf(ModelUnavailableError);
      expect(err).toMatchObject({
        code: 'MODEL_UNAVAILABLE',
        breakerOpen: true,
        message: expect.stringMatching(/circuit breaker is open/),
      });
      expect(server.callCount).toBe(3);

      server.setResponder(() => ({ content: 'back' }));
      await waitFor(async () => (breakerStates()[0].state === 'half_open' ? true : undefined), 5_000);
      await expect(model.invoke([new HumanMessage('probe')])).resolves.toMatchObject({ content: 'back' });
      expect(breakerStates()[0]).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
    });
  });
});
