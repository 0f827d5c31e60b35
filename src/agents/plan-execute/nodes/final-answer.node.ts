import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';

import { answerLanguageInstruction, localize, turnLanguage } from '../../../core/language';
import { askModel } from '../../shared/model-call';
import { fill } from '../../shared/text';
import { toolAnswer, type ToolResult } from '../../shared/tool-answer';
import { FINAL_ANSWER_PROMPT, GENERAL_CONVERSATION_PROMPT, PLAN_EXECUTE_TEXTS } from '../prompts';
import type { PastStep, PlanExecuteStateType, PlanExecuteUpdate } from '../state';

/** A step's result as the answer without a model words it; a string input is the calculator's expression. */
function asToolResult({ step, output }: PastStep): ToolResult {
  const { tool, input } = step;
  const args = typeof input === 'object' ? input : tool === 'calculator' && input ? { expression: input } : {};
  return { name: tool, args, output };
}

/** final_answer: FINAL_ANSWER_PROMPT over the results, or GENERAL_CONVERSATION_PROMPT when no tool ran. */
export function createFinalAnswer(deps: { model: () => BaseChatModel | null }) {
  return async function final_answer(state: PlanExecuteStateType, config: LangGraphRunnableConfig): Promise<PlanExecuteUpdate> {
    const results = state.past_steps.filter((p) => p.status === 'success');
    const model = deps.model();
    const language = turnLanguage(config, state.input);
    const answerIn = answerLanguageInstruction(language);
    let result: string;
    if (!model) {
      result = results.length
        ? toolAnswer(results.map(asToolResult), language, state.input)
        : localize(PLAN_EXECUTE_TEXTS, language).noModel;
    } else if (results.length) {
      const text = results.map((r) => `[step ${r.step.step_id}: ${r.step.tool}]\n${r.output}`).join('\n\n');
      const system = fill(FINAL_ANSWER_PROMPT, { input: state.input, query: state.rewritten_query, results: text });
      result = await askModel(model, [new SystemMessage(`${answerIn}\n${system}`), new HumanMessage(state.input)], config);
    } else {
      const history = state.messages.slice(-7);
      result = await askModel(model, [new SystemMessage(`${GENERAL_CONVERSATION_PROMPT}\n${answerIn}`), ...history], config);
    }
    return { result, messages: [new AIMessage(result)] };
  };
}

/** error_handler (fail-closed): the run stops with the error code and a user-facing message. */
export function error_handler(state: PlanExecuteStateType, config?: LangGraphRunnableConfig): PlanExecuteUpdate {
  const code = state.error?.code ?? 'PLAN_FAILED';
  const texts = localize(PLAN_EXECUTE_TEXTS, turnLanguage(config, state.input));
  const result = texts.errors[code] ?? texts.stopped;
  return { result, plan: [], messages: [new AIMessage(result)], decision_log: [...state.decision_log, { node: 'error_handler', code }] };
}
