import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { ChatResult } from '@langchain/core/outputs';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { MemorySaver } from '@langchain/langgraph';

import { calculatorTool } from '../../tools/basic/calculator.tool';
import { datetimeTool } from '../../tools/basic/datetime.tool';
import { buildReactGraph, ConditionalNode } from './graph';
import type { ReactStateType } from './state';

/** A chat model replaying scripted AI messages (with tool calls), recording what it was sent. */
class ScriptedChatModel extends BaseChatModel {
  readonly seen: BaseMessage[][] = [];
  constructor(private readonly replies: AIMessage[]) {
    super({});
  }
  _llmType() {
    return 'scripted';
  }
  bindTools() {
    return this as never;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.seen.push(messages);
    const reply = this.replies.shift();
    if (!reply) throw new Error('script exhausted');
    return { generations: [{ message: reply, text: String(reply.content) }] };
  }
}

const turn = (message: string, max = 5) => ({
  messages: [new HumanMessage(message)],
  user_message: message,
  current_step: 'start',
  iteration_count: 0,
  max_iterations: max,
  tool_calls: [],
  error: null,
  response: '',
  fast_path: false,
});
const cfg = (thread: string) => ({ configurable: { thread_id: thread } });
const tools = [calculatorTool, datetimeTool];

describe('react graph', () => {
  it('routes tool requests to the tool node, answers, and keeps the thread', async () => {
    const model = new ScriptedChatModel([
      new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'calculator', args: { expression: '6*7' }, type: 'tool_call' }] }),
      new AIMessage('42'),
    ]);
    const graph = buildReactGraph({ model: () => model, tools, toolCalling: () => 'native' }, new MemorySaver());
    const out = (await graph.invoke(turn('six times seven?'), cfg('t1'))) as ReactStateType;
    expect(out.response).toBe('42');
    expect(out.iteration_count).toBe(2);
    expect(out.tool_calls).toEqual([{ name: 'calculator', args: { expression: '6*7' }, status: 'success' }]);
    expect(model.seen[1].at(-1)?.content).toBe('42');
    expect(out.messages.map((m) => m.getType())).toEqual(['human', 'ai', 'tool', 'ai']);
  });

  it('turns an unknown tool and a failing tool into error results for the model', async () => {
    const model = new ScriptedChatModel([
      new AIMessage({
        content: '',
        tool_calls: [
          { id: 'a', name: 'rm_rf', args: {}, type: 'tool_call' },
          { id: 'b', name: 'calculator', args: { expression: '1/0' }, type: 'tool_call' },
        ],
      }),
      new AIMessage('sorry'),
    ]);
    const graph = buildReactGraph({ model: () => model, tools, toolCalling: () => 'native' }, new MemorySaver());
    const out = (await graph.invoke(turn('do things'), cfg('t2'))) as ReactStateType;
    expect(out.error).toBeNull();
    expect(out.tool_calls.map((c) => c.status)).toEqual(['error', 'error']);
    const toolMsgs = model.seen[1].filter((m) => m.getType() === 'tool').map((m) => String(m.content));
    expect(toolMsgs[0]).toMatch(/unknown tool "rm_rf".*calculator/);
    expect(toolMsgs[1]).toMatch(/^Error: calculator: result is Infinity/);
  });

  it('stops after max_iterations model calls with ITERATION_LIMIT', async () => {
    const call = () =>
      new AIMessage({
        content: '',
        tool_calls: [{ id: `c${Math.random()}`, name: 'calculator', args: { expression: '1+1' }, type: 'tool_call' }],
      });
    const model = new ScriptedChatModel([call(), call(), call(), call()]);
    const graph = buildReactGraph({ model: () => model, tools, toolCalling: () => 'native' }, new MemorySaver());
    const out = (await graph.invoke(turn('loop', 2), cfg('t3'))) as ReactStateType;
    expect(model.seen).toHaveLength(2);
    expect(out.error?.code).toBe('ITERATION_LIMIT');
    expect(out.current_step).toBe('error');
    // the answer is in the language of the message: English here, Korean for a Korean message
    expect(out.response).toBe('The request needed too many steps. Please split it into smaller questions.');
    expect(out.messages.at(-1)?.getType()).toBe('ai');
    const korean = new ScriptedChatModel([call(), call()]);
    const graphKo = buildReactGraph({ model: () => korean, tools, toolCalling: () => 'native' }, new MemorySaver());
    const outKo = (await graphKo.invoke(turn('계속 반복해', 1), cfg('t3-ko'))) as ReactStateType;
    expect(outKo.response).toBe('요청이 너무 복잡합니다. 질문을 나누어 다시 시도해 주세요.');
  });

  it('maps a model failure to MODEL_UNAVAILABLE', async () => {
    const model = new ScriptedChatModel([]);
    const graph = buildReactGraph({ model: () => model, tools, toolCalling: () => 'native' }, new MemorySaver());
    const out = (await graph.invoke(turn('hello'), cfg('t4'))) as ReactStateType;
    expect(out.error).toEqual({ code: 'MODEL_UNAVAILABLE', message: 'script exhausted' });
  });

  it('with no model: rules choose the tool and the answer is a sentence from its output, in the language of the message', async () => {
    const graph = buildReactGraph({ model: () => null, tools, toolCalling: () => 'native' }, new MemorySaver());
    const calc = (await graph.invoke(turn('what is 15 * 3 please'), cfg('t5'))) as ReactStateType;
    expect(calc.response).toBe('15 * 3 is 45.');
    const parenthesised = (await graph.invoke(turn('What is (12 + 3) * 4?'), cfg('t5'))) as ReactStateType;
    expect(parenthesised.response).toBe('(12 + 3) * 4 is 60.');
    const korean = (await graph.invoke(turn('(12 + 3) * 4는 얼마야?'), cfg('t5'))) as ReactStateType;
    expect(korean.response).toBe('(12 + 3) * 4의 값은 60입니다.');
    const chat = (await graph.invoke(turn('tell me a joke'), cfg('t5'))) as ReactStateType;
    expect(chat.response).toMatch(/No language model is configured/);
    expect(chat.tool_calls).toEqual([]);
  });

  it('answers a bare expression without calling the model even when one is configured', async () => {
    const model = new FakeListChatModel({ responses: ['should not be used'] });
    const spy = jest.spyOn(model, 'invoke');
    const graph = buildReactGraph({ model: () => model, tools, toolCalling: () => 'native' }, new MemorySaver());
    const out = (await graph.invoke(turn('2^10'), cfg('t6'))) as ReactStateType;
    expect(out.response).toBe('2^10 = 1024');
    expect(spy).not.toHaveBeenCalled();
  });

  it('ConditionalNode: error before tools, tools before response', () => {
    const ai = new AIMessage({ content: '', tool_calls: [{ id: 'x', name: 'calculator', args: {}, type: 'tool_call' }] });
    const base = turn('x') as Partial<ReactStateType> as ReactStateType;
    expect(ConditionalNode({ ...base, messages: [ai] })).toBe('tool');
    expect(ConditionalNode({ ...base, messages: [ai], error: { code: 'ITERATION_LIMIT', message: '' } })).toBe('error');
    expect(ConditionalNode({ ...base, messages: [new AIMessage('done')] })).toBe('response');
  });
});
