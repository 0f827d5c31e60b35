import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';

import { AppConfig } from '../../src/config/app-config';
import { type RunContext, withRunContext } from '../../src/core/run-context';
import { resetBreakers } from '../../src/llm/circuit-breaker';
import { LlmService } from '../../src/llm/llm.service';
import { UsageCollector } from '../../src/llm/usage-collector';
import { ScriptedModelServer } from '../support/model-server';

/** a graph run's context (core/run-context.ts) holding `parts` */
const runCtx = (parts: Partial<RunContext>) => withRunContext({ tenantId: 'default', runId: 'test-run', ...parts });

/** The service's model client (ChatOpenAI, metered) against the scripted server: calls, streaming, faults. */
describe('model client against the scripted OpenAI-compatible server', () => {
  const server = new ScriptedModelServer();
  let llm: LlmService;

  beforeAll(async () => {
    const baseUrl = await server.start();
    llm = new LlmService(
      new AppConfig({ LLM_BASE_URL: baseUrl, LLM_MODEL: 'scripted', LLM_MAX_RETRIES: '2', LLM_TIMEOUT_MS: '500', LLM_CACHE: 'false' }),
    );
  });
  afterAll(() => server.stop());
  beforeEach(() => {
    server.reset();
    resetBreakers();
  });

  const calc = tool(async ({ expression }: { expression: string }) => expression, {
    name: 'calculator',
    description: 'calc',
    schema: z.object({ expression: z.string() }),
  });

  it('invokes, reports usage, and meters the call in the run collector', async () => {
    server.enqueue({ content: 'hello there' });
    const usage = new UsageCollector();
    const out = await llm
      .chatModel()!
      .invoke([new HumanMessage('hi')], { configurable: { ...runCtx({ usage: usage }) }, metadata: { langgraph_node: 'n1' } });
    expect(out.content).toBe('hello there');
    expect(out.usage_metadata?.input_tokens).toBeGreaterThan(0);
    expect(usage.calls).toEqual([expect.objectContaining({ node: 'n1', prompt_tokens: out.usage_metadata!.input_tokens })]);
    expect(server.requests[0].model).toBe('scripted');
  });

  it('sends native tools and parses tool calls, also when streaming', async () => {
    server.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] });
    server.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '1+2' } }], content: 'thinking' });
    const bound = llm.chatModel()!.bindTools!([calc]);
    const out = await bound.invoke([new HumanMessage('6*7?')]);
    expect(out.tool_calls).toEqual([expect.objectContaining({ name: 'calculator', args: { expression: '6*7' } })]);
    expect(server.requests[0].tools![0].function.name).toBe('calculator');

    let text = '';
    let merged: any;
    for await (const chunk of await bound.stream([new HumanMessage('1+2?')])) {
      text += chunk.content;
      merged = merged ? merged.concat(chunk) : chunk;
    }
    expect(server.requests[1].stream).toBe(true);
    expect(text).toBe('thinking');
    expect(merged.tool_calls).toEqual([expect.objectContaining({ name: 'calculator', args: { expression: '1+2' } })]);
  });

  it('retries a 500 and a 429 with backoff, at most LLM_MAX_RETRIES times', async () => {
    // a 429 without retry-after is not retried by the OpenAI client itself; MeteredChatOpenAI retries it
    server.enqueue({ fault: 'http_500' }, { fault: 'http_429' }, { content: 'finally' });
    const out = await llm.chatModel()!.invoke([new HumanMessage('hi')]);
    expect(out.content).toBe('finally');
    expect(server.callCount).toBe(3);

    server.reset();
    server.enqueue({ fault: 'http_429' }, { fault: 'http_429' }, { fault: 'http_429' }, { content: 'too late' });
    await expect(llm.chatModel()!.invoke([new HumanMessage('hi')])).rejects.toThrow(/429/);
    expect(server.callCount).toBe(3);

    server.reset();
    server.enqueue({ fault: 'http_500' }, { fault: 'http_500' }, { fault: 'http_500' }, { content: 'too late' });
    await expect(llm.chatModel()!.invoke([new HumanMessage('hi')])).rejects.toThrow();
    expect(server.callCount).toBe(3);
  });

  it('gives up on a hanging endpoint after the timeout and retries', async () => {
    server.setResponder(() => ({ fault: 'hang' }));
    const t0 = Date.now();
    await expect(llm.chatModel()!.invoke([new HumanMessage('hi')])).rejects.toThrow();
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(server.callCount).toBe(3);
  });

  it('rejects a malformed body and records unscripted requests', async () => {
    server.enqueue({ fault: 'malformed' }, { fault: 'malformed' }, { fault: 'malformed' });
    await expect(llm.chatModel()!.invoke([new HumanMessage('hi')])).rejects.toThrow();
    server.reset();
    await expect(llm.chatModel({ temperature: 0.5 })!.invoke([new HumanMessage('nobody scripted this')])).rejects.toThrow();
    expect(server.unexpected).toHaveLength(3);
  });
});
