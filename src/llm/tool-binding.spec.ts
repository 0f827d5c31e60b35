import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';

import { FakeChatModel, httpError } from '../../test/support/fake-chat-model';
import { bindToolsForMode, isToolCallingRefusal, resetToolCallingMemory, toolCallingRefused } from './tool-binding';

const calculator = tool(async ({ expression }: { expression: string }) => expression, {
  name: 'calculator',
  description: 'Evaluates arithmetic.',
  schema: z.object({ expression: z.string() }),
});
const tools = [calculator];
const VLLM = httpError(400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set');
const OLLAMA = httpError(400, 'registry.ollama.ai/library/qwen2.5:7b does not support tools');
const REACT_REPLY = 'Thought: 계산\nAction: calculator\nAction Input: {"expression": "6*7"}';
const sentTools = (m: FakeChatModel) => m.calls.map((c) => Array.isArray(c.options.tools) && c.options.tools.length > 0);

describe('LLM_TOOL_CALLING=auto', () => {
  beforeEach(() => resetToolCallingMemory());

  it('uses native tool calls while the endpoint accepts them', async () => {
    const native = new AIMessage({
      content: '',
      tool_calls: [{ id: 'c1', name: 'calculator', args: { expression: '1+1' }, type: 'tool_call' }],
    });
    const model = new FakeChatModel([native]);
    const out = (await bindToolsForMode(model, tools, 'auto').invoke([new HumanMessage('1+1?')])) as AIMessage;
    expect(out.tool_calls?.[0]).toMatchObject({ name: 'calculator', args: { expression: '1+1' } });
    expect(sentTools(model)).toEqual([true]);
    expect(toolCallingRefused(model)).toBe(false);
  });

  it.each([
    ['vLLM', VLLM],
    ['Ollama', OLLAMA],
  ])('switches to the ReAct text format when %s refuses tools, retries once, and remembers it', async (_name, refusal) => {
    const model = new FakeChatModel([refusal, REACT_REPLY, 'Final Answer: 42']);
    const bound = bindToolsForMode(model, tools, 'auto');
    const out = (await bound.invoke([new HumanMessage('6*7?')])) as AIMessage;
    expect(out.tool_calls?.[0]).toMatchObject({ name: 'calculator', args: { expression: '6*7' } });
    expect(out.response_metadata.prompt_tool_calling).toBe(true);
    expect(sentTools(model)).toEqual([true, false]);
    expect(String(model.calls[1].messages[0].content)).toMatch(/Action Input/);
    expect(toolCallingRefused(model)).toBe(true);
    // remembered: the next call goes straight to prompt mode, no native attempt
    const next = await bindToolsForMode(model, tools, 'auto').invoke([new HumanMessage('thanks')]);
    expect(next.content).toBe('42');
    expect(sentTools(model)).toEqual([true, false, false]);
  });

  it("adds no chain run of its own: the model call is the run a callback sees, with the caller's metadata", async () => {
    const native = new AIMessage({
      content: '',
      tool_calls: [{ id: 'c1', name: 'calculator', args: { expression: '2*3' }, type: 'tool_call' }],
    });
    const model = new FakeChatModel([native]);
    const runs: string[] = [];
    const handler = BaseCallbackHandler.fromMethods({
      handleChainStart: (_s, _i, _id, _p, _t, _m, _type, name) => void runs.push(`chain:${name}`),
      handleChatModelStart: (_s, _m, _id, _p, _e, _t, metadata) => void runs.push(`model:${String(metadata?.langgraph_node)}`),
    });
    await bindToolsForMode(model, tools, 'auto').invoke([new HumanMessage('2*3?')], {
      callbacks: [handler],
      metadata: { langgraph_node: 'LlmNode' },
    });
    expect(runs).toEqual(['model:LlmNode']);
  });

  it('does not treat another 400 as a refusal, nor retry it', async () => {
    const model = new FakeChatModel([httpError(400, "Invalid 'messages[1].content': string too long"), REACT_REPLY]);
    await expect(bindToolsForMode(model, tools, 'auto').invoke([new HumanMessage('x')])).rejects.toThrow(/string too long/);
    expect(model.calls).toHaveLength(1);
    expect(toolCallingRefused(model)).toBe(false);
  });

  it('does not switch on a 5xx or on a refusal text with another status', () => {
    expect(isToolCallingRefusal(VLLM)).toBe(true);
    expect(isToolCallingRefusal(OLLAMA)).toBe(true);
    expect(isToolCallingRefusal(httpError(500, 'does not support tools'))).toBe(false);
    expect(isToolCallingRefusal(httpError(400, 'model not found'))).toBe(false);
    expect(isToolCallingRefusal(new Error('does not support tools'))).toBe(false);
  });

  it('native and prompt modes are unchanged', async () => {
    const model = new FakeChatModel([REACT_REPLY, httpError(400, 'registry.ollama.ai/library/x does not support tools')]);
    const prompt = (await bindToolsForMode(model, tools, 'prompt').invoke([new HumanMessage('6*7?')])) as AIMessage;
    expect(prompt.tool_calls).toHaveLength(1);
    await expect(bindToolsForMode(model, tools, 'native').invoke([new HumanMessage('6*7?')])).rejects.toThrow(/does not support tools/);
    expect(sentTools(model)).toEqual([false, true]);
    expect(toolCallingRefused(model)).toBe(false);
  });
});
