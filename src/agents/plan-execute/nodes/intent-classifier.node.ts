import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { z } from 'zod';

import { decideJson } from '../../../llm/decide-json';
import { ruleToolCall } from '../../shared/rules';
import { fill } from '../../shared/text';
import { INTENT_PROMPT } from '../prompts';
import { isChitchat, isContentOnly } from '../rules';
import type { PlanExecuteStateType, PlanExecuteUpdate } from '../state';

const IntentSchema = z.object({
  intent: z.enum(['new_question', 'follow_up', 'clarification', 'chitchat']),
  rewritten_query: z.string().min(1),
  needs_tool: z.boolean(),
  constraints: z.string().default(''),
});

/** intent_classifier: rules for chitchat and content-only input; otherwise the model, given the recent turns. */
export function createIntentClassifier(deps: { model: () => BaseChatModel | null; manifest: () => string }) {
  return async function intent_classifier(state: PlanExecuteStateType, config: LangGraphRunnableConfig): Promise<PlanExecuteUpdate> {
    const log = (entry: Record<string, unknown>) => [...state.decision_log, { node: 'intent_classifier', ...entry }];
    if (isChitchat(state.input)) {
      return {
        intent: 'chitchat',
        rewritten_query: state.input,
        needs_tool: false,
        constraints: '',
        decision_log: log({ intent: 'chitchat', by: 'rules' }),
      };
    }
    if (isContentOnly(state.input)) {
      return {
        intent: 'new_question',
        rewritten_query: state.input,
        needs_tool: false,
        content_only: true,
        constraints: '',
        decision_log: log({ intent: 'content_only', by: 'rules' }),
      };
    }
    const model = deps.model();
    if (!model) {
      const needs = ruleToolCall(state.input) !== null;
      return {
        intent: 'new_question',
        rewritten_query: state.input,
        needs_tool: needs,
        constraints: '',
        decision_log: log({ needs_tool: needs, by: 'rules' }),
      };
    }
    const recent = state.messages
      .slice(-7, -1)
      .map((m) => `${m.getType() === 'human' ? 'user' : 'assistant'}: ${String(m.content)}`)
      .join('\n');
    const prompt = `${recent ? `최근 대화:\n${recent}\n\n` : ''}새 입력: ${state.input}`;
    const parsed = await decideJson(
      model,
      [new SystemMessage(fill(INTENT_PROMPT, { manifest: deps.manifest() })), new HumanMessage(prompt)],
      IntentSchema,
      { node: 'intent_classifier', config },
    );
    if (!parsed.ok) {
      // an unreadable classification is not fatal: plan from the input as it is
      return {
        intent: 'new_question',
        rewritten_query: state.input,
        needs_tool: true,
        constraints: '',
        decision_log: log({ by: 'default', reason: 'unreadable classification' }),
      };
    }
    return { ...parsed.value, decision_log: log({ ...parsed.value, by: 'model' }) };
  };
}
