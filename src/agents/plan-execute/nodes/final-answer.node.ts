import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';

import { askModel } from '../../shared/model-call';
import { fill } from '../../shared/text';
import { ERROR_MESSAGES, FINAL_ANSWER_PROMPT, GENERAL_CONVERSATION_PROMPT } from '../prompts';
import type { PlanExecuteStateType, PlanExecuteUpdate } from '../state';

/** final_answer: FINAL_ANSWER_PROMPT over the results, or GENERAL_CONVERSATION_PROMPT when no tool ran. */
export function createFinalAnswer(deps: { model: () => BaseChatModel | null }) {
  return async function final_answer(state: PlanExecuteStateType, config: LangGraphRunnableConfig): Promise<PlanExecuteUpdate> {
    const results = state.past_steps.filter((p) => p.status === 'success');
    const model = deps.model();
    let result: string;
    if (!model) {
      result = results.length
        ? results.map((r) => r.output).join('\n')
        : '언어 모델이 설정되어 있지 않아 도구로 처리할 수 있는 요청(계산, 현재 시간)에만 답할 수 있습니다.';
    } else if (results.length) {
      const text = results.map((r) => `[step ${r.step.step_id}: ${r.step.tool}]\n${r.output}`).join('\n\n');
      const system = fill(FINAL_ANSWER_PROMPT, { input: state.input, query: state.rewritten_query, results: text });
      result = await askModel(model, [new SystemMessage(system), new HumanMessage(state.input)], config);
    } else {
      const history = state.messages.slice(-7);
      result = await askModel(model, [new SystemMessage(GENERAL_CONVERSATION_PROMPT), ...history], config);
    }
    return { result, messages: [new AIMessage(result)] };
  };
}

/** error_handler (fail-closed): the run stops with the error code and a user-facing message. */
export function error_handler(state: PlanExecuteStateType): PlanExecuteUpdate {
  const code = state.error?.code ?? 'PLAN_FAILED';
  const result = ERROR_MESSAGES[code] ?? '실행이 중단되었습니다.';
  return { result, plan: [], messages: [new AIMessage(result)], decision_log: [...state.decision_log, { node: 'error_handler', code }] };
}
