import { randomUUID } from 'node:crypto';

import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { type RunnableConfig, RunnableLambda } from '@langchain/core/runnables';
import type { StructuredToolInterface } from '@langchain/core/tools';

import { localize, type Messages, turnLanguage } from '../../core/language';
import { reactInstructions } from './react-prompt';
import { parseToolCallReply } from './tool-call-parser';

/** The answer when the model's tool calls could not be read, in the user's language (core/language.ts). */
export const PROMPT_TOOL_FAILURE: Messages<string> = {
  en: 'The model answered in a tool-call format that could not be read, so the answer is incomplete. Please rephrase the question.',
  ko: '도구 호출 형식을 해석하지 못해 답변을 완성하지 못했습니다. 질문을 다시 표현해 주세요.',
};

/**
 * A model that answers like a natively tool-calling one (AIMessage with `tool_calls`) while the endpoint
 * sees no `tools`: the catalogue goes into the system prompt in the ReAct format, earlier calls and results are
 * rendered as `Action` / `Observation` text, and the reply is parsed. A reply in no usable format is answered
 * with a short format observation, at most `maxFormatRetries` times; a tool outside the catalogue never runs.
 */
export function withPromptToolCalling(model: BaseChatModel, tools: StructuredToolInterface[], opts: { maxFormatRetries?: number } = {}) {
  const names = tools.map((t) => t.name);
  const instructions = reactInstructions(tools);
  const maxRetries = opts.maxFormatRetries ?? 2;
  return RunnableLambda.from(async (messages: BaseMessage[], config?: RunnableConfig): Promise<AIMessage> => {
    const transcript = renderTranscript(messages, instructions);
    // the raw ReAct text (Thought / Action …) is not the answer: keep it out of token streaming; the parsed
    // message this returns reaches the stream as the node's output
    const callConfig: RunnableConfig = { ...config, tags: [...(config?.tags ?? []), 'nostream'] };
    for (let attempt = 0; ; attempt++) {
      const reply = await model.invoke(transcript, callConfig);
      const text = typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);
      const parsed = parseToolCallReply(text, names);
      const usage = (reply as AIMessage).usage_metadata;
      if (parsed.kind === 'tool_call') {
        return new AIMessage({
          content: parsed.thought ?? '',
          tool_calls: [{ id: `call_${randomUUID().slice(0, 12)}`, name: parsed.tool, args: parsed.input, type: 'tool_call' }],
          usage_metadata: usage,
          response_metadata: { prompt_tool_calling: true, repaired: parsed.repaired },
        });
      }
      if (parsed.kind === 'final')
        return new AIMessage({ content: parsed.answer, usage_metadata: usage, response_metadata: { prompt_tool_calling: true } });
      if (attempt >= maxRetries) {
        return new AIMessage({
          content: localize(PROMPT_TOOL_FAILURE, turnLanguage(config, lastHumanText(messages))),
          usage_metadata: usage,
          response_metadata: { prompt_tool_calling: true, prompt_tool_error: true },
        });
      }
      transcript.push(new AIMessage(text), new HumanMessage(parsed.observation));
    }
  }).withConfig({ runName: 'prompt_tool_calling' });
}

function lastHumanText(messages: BaseMessage[]): string {
  const human = messages.filter((m) => m.getType() === 'human').at(-1);
  return typeof human?.content === 'string' ? human.content : '';
}

/** The conversation as a tool-less model sees it: instructions in the system prompt, calls as text. */
export function renderTranscript(messages: BaseMessage[], instructions: string): BaseMessage[] {
  const out: BaseMessage[] = [];
  const first = messages[0];
  const hasSystem = first?.getType() === 'system';
  out.push(new SystemMessage(`${hasSystem ? `${String(first.content)}\n\n` : ''}${instructions}`));
  for (const m of hasSystem ? messages.slice(1) : messages) {
    const type = m.getType();
    if (type === 'ai' && (m as AIMessage).tool_calls?.length) {
      const calls = (m as AIMessage).tool_calls!.map((c) => `Action: ${c.name}\nAction Input: ${JSON.stringify(c.args)}`).join('\n');
      out.push(new AIMessage(`${m.content ? `Thought: ${String(m.content)}\n` : ''}${calls}`));
    } else if (type === 'tool') {
      out.push(new HumanMessage(`Observation: ${String(m.content)}`));
    } else {
      out.push(m);
    }
  }
  return out;
}
