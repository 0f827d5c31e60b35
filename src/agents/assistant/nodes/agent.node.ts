import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, SystemMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';

import { answerLanguageInstruction, type Language, localize, turnLanguage } from '../../../core/language';
import { bindToolsForMode } from '../../../llm/tool-binding';
import { buildSystemPrompt } from '../../../memory/memory.node';
import { untrustedBodies } from '../../../tools/untrusted';
import { agentTexts } from '../../shared/messages';
import { outageAnswer, toolResultsOfTurn } from '../../shared/outage';
import { ruleToolCall } from '../../shared/rules';
import { lastToolResults, toolAnswer } from '../../shared/tool-answer';
import { ASSISTANT_SYSTEM_PROMPT, ASSISTANT_TEXTS } from '../prompts';
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
    const language = turnLanguage(config, state.user_message);
    if (iteration_count > state.max_iterations) {
      const text = agentTexts(language).iterationLimit;
      return {
        iteration_count,
        next_action: 'end',
        messages: [new AIMessage(text)],
        error: { code: 'ITERATION_LIMIT', message: `stopped after ${state.max_iterations} model iterations` },
      };
    }
    const model = deps.model();
    if (!model) return { iteration_count, ...withoutModel(state, language) };
    const bound = bindToolsForMode(model, deps.tools, deps.toolCalling());
    const system = new SystemMessage(
      buildSystemPrompt(
        [ASSISTANT_SYSTEM_PROMPT, answerLanguageInstruction(language), state.memories].filter(Boolean).join('\n'),
        state.summary,
        state.context,
      ),
    );
    try {
      const reply = (await bound.invoke([system, ...state.messages], config)) as AIMessage;
      return { iteration_count, messages: [reply], next_action: reply.tool_calls?.length ? 'tools' : 'end' };
    } catch (err) {
      if (config.signal?.aborted) throw err;
      const { text, degraded } = outageAnswer(toolResultsOfTurn(state.messages), language);
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
function withoutModel(state: AssistantStateType, language: Language): AssistantUpdate {
  const texts = localize(ASSISTANT_TEXTS, language);
  const last = state.messages[state.messages.length - 1];
  if (last?.getType() === 'tool')
    return { next_action: 'end', messages: [new AIMessage(toolAnswer(lastToolResults(state.messages), language, state.user_message))] };
  const call = ruleToolCall(state.user_message);
  if (call) return { next_action: 'tools', messages: [new AIMessage({ content: '', tool_calls: [call] })] };
  if (state.context) return { next_action: 'end', messages: [new AIMessage(`${texts.documents}\n\n${untrustedBodies(state.context)}`)] };
  return { next_action: 'end', messages: [new AIMessage(texts.noModel)] };
}
