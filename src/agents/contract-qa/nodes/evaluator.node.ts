import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { z } from 'zod';

import { exhibitIndex, extractArticleRefs } from '../../../knowledge/contracts/article-matching';
import { decideJson } from '../../../llm/decide-json';
import { fill } from '../../shared/text';
import { EVALUATOR_PROMPT, EVALUATOR_SYSTEM } from '../prompts';
import type { ContractQaStateType, ContractQaUpdate } from '../state';
import { unreadHits } from './planner.node';

const Evaluation = z.object({
  is_sufficient: z.boolean(),
  reasoning: z.coerce.string().default(''),
  missing_info: z.string().nullable().optional(),
});

/**
 * evaluator: counts the iteration; stops at max_iterations; otherwise the model's `{is_sufficient, reasoning,
 * missing_info}` (temperature 0.2, 300 tokens). Without a model: stop once articles have been read.
 */
export function createEvaluator(deps: { model: (o: { temperature: number; maxTokens: number }) => BaseChatModel | null }) {
  return async function evaluator(state: ContractQaStateType, config: LangGraphRunnableConfig): Promise<ContractQaUpdate> {
    const iteration_count = state.iteration_count + 1;
    const log = (decision: 'continue' | 'finish', extra: Record<string, unknown>) => ({
      iteration_count,
      decision_log: [...state.decision_log, { node: 'evaluator', decision, iteration: iteration_count, ...extra }],
    });
    if (iteration_count >= state.max_iterations)
      return log('finish', { reasoning: `reached max_iterations (${state.max_iterations})`, limit_reached: true });
    const haveArticles = state.collected_info.some((c) => (c.articles?.length ?? 0) > 0 || (c.exhibits?.length ?? 0) > 0);
    // rule fast path: every article and exhibit the question names has been read
    const refs = extractArticleRefs(state.user_message);
    const readExhibits = new Set(state.collected_info.flatMap((c) => c.exhibits?.map((e) => exhibitIndex(e.number)) ?? []));
    if (
      (refs.articles.length || refs.exhibits.length) &&
      refs.articles.every((i) => state.explored_articles.includes(i)) &&
      refs.exhibits.every((i) => readExhibits.has(i))
    ) {
      return log('finish', { reasoning: 'every named article has been read', by: 'rules' });
    }
    const model = deps.model({ temperature: 0.2, maxTokens: 300 });
    if (!model)
      return log(haveArticles ? 'finish' : 'continue', {
        reasoning: haveArticles ? 'articles found (rules)' : 'no article text yet (rules)',
        by: 'rules',
      });
    const details = state.collected_info
      .map((c, i) => `${i + 1}. ${c.tool}: ${c.summary}${c.articles?.length ? ` (${c.articles.map((a) => a.number).join(', ')})` : ''}`)
      .join('\n');
    const prompt = fill(EVALUATOR_PROMPT, {
      question: state.user_message,
      count: state.collected_info.length,
      details,
      iteration: iteration_count,
      max: state.max_iterations,
    });
    const answer = await decideJson(model, [new SystemMessage(EVALUATOR_SYSTEM), new HumanMessage(prompt)], Evaluation, {
      node: 'evaluator',
      config,
    });
    const v = answer.ok ? answer.value : null;
    const sufficient = v ? v.is_sufficient : haveArticles;
    return log(sufficient ? 'finish' : 'continue', {
      reasoning: v?.reasoning ?? 'unreadable evaluation',
      missing_info: v?.missing_info ?? null,
      by: 'model',
    });
  };
}

/** continue → planner; finish → respond, reading first (by rule) the found articles still unread. */
export function should_continue(s: ContractQaStateType): 'continue' | 'read_found' | 'finish' {
  if (s.decision_log.at(-1)?.decision === 'continue') return 'continue';
  return unreadHits(s).length ? 'read_found' : 'finish';
}
