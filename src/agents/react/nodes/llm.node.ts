import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';

import { answerLanguageInstruction, type Language, turnLanguage } from '../../../core/language';
import { bindToolsForMode } from '../../../llm/tool-binding';
import { agentTexts } from '../../shared/messages';
import { bareExpression, ruleToolCall } from '../../shared/rules';
import { lastToolResults, toolAnswer } from '../../shared/tool-answer';
import type { ToolRunOptions } from '../../shared/tool-executor';
import { REACT_SYSTEM_PROMPT } from '../prompts';
import type { ReactStateType, ReactUpdate } from '../state';

export interface LlmNodeDeps {
  model: () => BaseChatModel | null;
  tools: StructuredToolInterface[];
  toolCalling: () => Parameters<typeof bindToolsForMode>[2];
  /** how the tool node runs tools (metering) */
  toolRun?: ToolRunOptions;
  /** the system prompt (default: REACT_SYSTEM_PROMPT; the supervisor's sub-agents give their role) */
  systemPrompt?: string;
}

/** LlmNode: one model call per visit (counted in iteration_count), with a rule fast path before it. */
export function createLlmNode(deps: LlmNodeDeps) {
  const offered = new Set(deps.tools.map((t) => t.name)); // the agent's tools are fixed: named once, not per call
  return async function llm(state: ReactStateType, config: LangGraphRunnableConfig): Promise<ReactUpdate> {
    const iteration_count = state.iteration_count + 1;
    if (iteration_count > state.max_iterations) {
      return {
        iteration_count,
        current_step: 'llm',
        error: { code: 'ITERATION_LIMIT', message: `stopped after ${state.max_iterations} model iterations` },
      };
    }
    const language = turnLanguage(config, state.user_message);
    const ruled = decideByRules(state, deps.model() === null, offered, language);
    if (ruled) return { ...ruled, iteration_count, current_step: 'llm' };

    const model = deps.model()!;
    const bound = bindToolsForMode(model, deps.tools, deps.toolCalling());
    try {
      const system = `${deps.systemPrompt ?? REACT_SYSTEM_PROMPT}\n${answerLanguageInstruction(language)}`;
      const reply = await bound.invoke([new SystemMessage(system), ...state.messages], config);
      return { messages: [reply], iteration_count, current_step: 'llm' };
    } catch (err) {
      if (config.signal?.aborted) throw err;
      return {
        iteration_count,
        current_step: 'llm',
        error: { code: 'MODEL_UNAVAILABLE', message: (err as Error).message.slice(0, 300) },
      };
    }
  };
}

/**
 * Decisions without a model: a bare expression goes straight to the calculator and its result is the answer;
 * with no model configured, rules pick the tool and the answer is a sentence per tool result (tool-answer.ts).
 */
function decideByRules(state: ReactStateType, noModel: boolean, offered: Set<string>, language: Language): Partial<ReactUpdate> | null {
  const last = state.messages[state.messages.length - 1];
  const afterTools = last instanceof ToolMessage || last?.getType() === 'tool';
  if (afterTools) {
    if (!state.fast_path && !noModel) return null;
    return { messages: [new AIMessage(extractiveAnswer(state, language))] };
  }
  const expr = bareExpression(state.user_message);
  const ruled = expr || noModel ? ruleToolCall(state.user_message) : null;
  const call = ruled && offered.has(ruled.name) ? ruled : null;
  if (call) return { messages: [new AIMessage({ content: '', tool_calls: [call] })], fast_path: Boolean(expr) };
  return noModel ? { messages: [new AIMessage(agentTexts(language).noModel)] } : null;
}

function extractiveAnswer(state: ReactStateType, language: Language): string {
  return toolAnswer(lastToolResults(state.messages), language, state.user_message);
}
