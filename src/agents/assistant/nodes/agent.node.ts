import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, SystemMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';

import { bindToolsForMode } from '../../../llm/tool-binding';
import { buildSystemPrompt } from '../../../memory/memory.node';
import { outageAnswer, toolResultsOfTurn } from '../../shared/outage';
import { ruleToolCall } from '../../shared/rules';
import { ASSISTANT_SYSTEM_PROMPT, NO_MODEL_ANSWER } from '../prompts';
import type { AssistantStateType, AssistantUpdate } from '../state';

export interface AgentNodeDeps {
  model: () => BaseChatModel | null;
  tools: StructuredToolInterface[];
  toolCalling: () => Parameters<typeof bindToolsForMode>[2];
}

/** agent: the model with the summary and documents in its system prompt, deciding on tools (seed 001). */
export function createAgentNode(deps: AgentNodeDeps) {
  return async function agent(state: AssistantStateType, config: LangGraphRunnableConfig): Promise<AssistantUpdate> {
    const iteration_count = state.iteration_count + 1;
    if (iteration_count > state.max_iterations) {
      const text = '요청이 너무 복잡합니다. 질문을 나누어 다시 시도해 주세요.';
      return {
        iteration_count,
        next_action: 'end',
        messages: [new AIMessage(text)],
        error: { code: 'ITERATION_LIMIT', message: `stopped after ${state.max_iterations} model iterations` },
      };
    }
    const model = deps.model();
    if (!model) return { iteration_count, ...withoutModel(state) };
    const bound = bindToolsForMode(model, deps.tools, deps.toolCalling());
    const system = new SystemMessage(buildSystemPrompt(ASSISTANT_SYSTEM_PROMPT, state.summary, state.context));
    try {
      const reply = (await bound.invoke([system, ...state.messages], config)) as AIMessage;
      return { iteration_count, messages: [reply], next_action: reply.tool_calls?.length ? 'tools' : 'end' };
    } catch (err) {
      if (config.signal?.aborted) throw err;
      const { text, degraded } = outageAnswer(toolResultsOfTurn(state.messages));
      return {
        iteration_count,
        next_action: 'end',
        degraded,
        messages: [new AIMessage(text)],
        error: { code: 'MODEL_UNAVAILABLE', message: (err as Error).message.slice(0, 300) },
      };
    }
  };
}

/** No model: a rule-chosen tool, then its output; or the retrieved passages; or what the service can do. */
function withoutModel(state: AssistantStateType): AssistantUpdate {
  const last = state.messages[state.messages.length - 1];
  if (last?.getType() === 'tool') return { next_action: 'end', messages: [new AIMessage(String(last.content))] };
  const call = ruleToolCall(state.user_message);
  if (call) return { next_action: 'tools', messages: [new AIMessage({ content: '', tool_calls: [call] })] };
  if (state.context) return { next_action: 'end', messages: [new AIMessage(`관련 문서 내용입니다:\n\n${state.context}`)] };
  return { next_action: 'end', messages: [new AIMessage(NO_MODEL_ANSWER)] };
}
