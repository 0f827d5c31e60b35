import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { tool } from '@langchain/core/tools';
import { MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { z } from 'zod';

import { PROMPT_TOOL_FAILURE, withPromptToolCalling } from './prompt-tool-calling.model';

class ScriptedTextModel extends BaseChatModel {
  readonly seen: BaseMessage[][] = [];
  bound = false;
  constructor(private readonly replies: string[]) {
    super({});
  }
  _llmType() {
    return 'scripted-text';
  }
  bindTools() {
    this.bound = true;
    return this as never;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.seen.push(messages);
    const text = this.replies.shift() ?? 'Final Answer: (script exhausted)';
    return { generations: [{ message: new AIMessage(text), text }] };
  }
}

const calculator = tool(async ({ expression }: { expression: string }) => expression, {
  name: 'calculator',
  description: 'Evaluates arithmetic.',
  schema: z.object({ expression: z.string().describe('the expression') }),
});

describe('withPromptToolCalling', () => {
  it('puts the catalogue in the system prompt, sends no tools, and returns tool_calls', async () => {
    const model = new ScriptedTextModel(['Thought: 계산\nAction: calculator\nAction Input: {"expression": "6*7"}']);
    const out = await withPromptToolCalling(model, [calculator]).invoke([new SystemMessage('You are helpful.'), new HumanMessage('6*7?')]);
    expect(model.bound).toBe(false);
    const system = String(model.seen[0][0].content);
    expect(system).toMatch(/^You are helpful\.\n\n## 도구 사용 방법/);
    expect(system).toContain('- calculator: Evaluates arithmetic.\n  Arguments: expression (string, required): the expression');
    expect(out.tool_calls).toEqual([expect.objectContaining({ name: 'calculator', args: { expression: '6*7' }, type: 'tool_call' })]);
    expect(out.content).toBe('계산');
  });

  it('renders earlier calls and results as Action / Observation text', async () => {
    const model = new ScriptedTextModel(['Final Answer: 42입니다.']);
    const history = [
      new HumanMessage('6*7?'),
      new AIMessage({ content: '계산', tool_calls: [{ id: 'c1', name: 'calculator', args: { expression: '6*7' }, type: 'tool_call' }] }),
      new ToolMessage({ content: '42', tool_call_id: 'c1' }),
    ];
    const out = await withPromptToolCalling(model, [calculator]).invoke(history);
    expect(out.content).toBe('42입니다.');
    expect(out.tool_calls ?? []).toHaveLength(0);
    const seen = model.seen[0].map((m) => `${m.getType()}:${String(m.content)}`);
    expect(seen.slice(1)).toEqual([
      'human:6*7?',
      'ai:Thought: 계산\nAction: calculator\nAction Input: {"expression":"6*7"}',
      'human:Observation: 42',
    ]);
  });

  it('feeds a format error back, then gives up after the bound without crashing', async () => {
    const model = new ScriptedTextModel([
      'Action: calculator',
      'Action: calculator\nAction Input: {oops',
      'Action: calculator\nAction Input: {"expression": "1+1"}',
    ]);
    const ok = await withPromptToolCalling(model, [calculator], { maxFormatRetries: 2 }).invoke([new HumanMessage('1+1')]);
    expect(ok.tool_calls?.[0]).toMatchObject({ name: 'calculator', args: { expression: '1+1' } });
    expect(String(model.seen[1].at(-1)!.content)).toMatch(/^Observation: The tool call could not be read/);

    const stubborn = new ScriptedTextModel(['Action: calculator', 'Action: calculator', 'Action: calculator', 'never asked']);
    const failed = await withPromptToolCalling(stubborn, [calculator], { maxFormatRetries: 2 }).invoke([new HumanMessage('1+1')]);
    expect(stubborn.seen).toHaveLength(3);
    expect(failed.content).toBe(PROMPT_TOOL_FAILURE.en); // asked "1+1": no script, English
    const korean = new ScriptedTextModel(['Action: calculator', 'Action: calculator', 'Action: calculator']);
    const failedKo = await withPromptToolCalling(korean, [calculator], { maxFormatRetries: 2 }).invoke([new HumanMessage('1+1 계산해줘')]);
    expect(failedKo.content).toBe(PROMPT_TOOL_FAILURE.ko);
    expect(failed.response_metadata.prompt_tool_error).toBe(true);
  });

  it('never turns a tool outside the catalogue into a call', async () => {
    const model = new ScriptedTextModel(['Action: drop_tables\nAction Input: {}', 'Final Answer: 그 작업은 할 수 없습니다.']);
    const out = await withPromptToolCalling(model, [calculator]).invoke([new HumanMessage('drop everything')]);
    expect(out.tool_calls ?? []).toHaveLength(0);
    expect(out.content).toBe('그 작업은 할 수 없습니다.');
    expect(String(model.seen[1].at(-1)!.content)).toMatch(/"drop_tables" is not an available tool\. Use one of: calculator/);
  });
});

describe('withPromptToolCalling in a streaming graph', () => {
  it('streams the parsed answer, never the raw ReAct text', async () => {
    const model = new ScriptedTextModel(['Thought: 인사입니다.\nFinal Answer: 안녕하세요!']);
    const bound = withPromptToolCalling(model, [calculator]);
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('agent', async (state, config) => ({ messages: [await bound.invoke(state.messages, config)] }))
      .addEdge(START, 'agent')
      .compile();
    const texts: string[] = [];
    for await (const [message] of await graph.stream({ messages: [new HumanMessage('안녕')] }, { streamMode: 'messages' })) {
      texts.push(String(message.content));
    }
    expect(texts.join('')).toBe('안녕하세요!');
    expect(texts.some((t) => t.includes('Final Answer') || t.includes('Thought'))).toBe(false);
  });
});
