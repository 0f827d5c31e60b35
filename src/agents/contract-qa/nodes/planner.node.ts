import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { z } from 'zod';

import { extractArticleRefs } from '../../../knowledge/contracts/article-matching';
import { decideJson } from '../../../llm/decide-json';
import { mapToolParameters, toolSignature } from '../../../tools/contract/contract-tools';
import { fill } from '../../shared/text';
import { topicsOf } from '../classifier';
import { PLANNER_PROMPT, PLANNER_SYSTEM } from '../prompts';
import type { ContractQaStateType, ContractQaUpdate, PlannedTool } from '../state';

const TOOLS = [
  'get_contract_structure',
  'hybrid_search',
  'get_article_by_index',
  'get_article_by_title',
  'lookup_standard_contract',
] as const;
const NextTool = z.object({
  tool: z.enum(TOOLS),
  args: z.record(z.string(), z.unknown()).default({}),
  reasoning: z.coerce.string().default(''),
});

/**
 * planner: rules suggest the next tool (article numbers → get_article_by_index; first round → hybrid_search
 * with get_contract_structure in parallel; found but unread articles → get_article_by_index); the model
 * (temperature 0.3, 500 tokens) only when rules have nothing. The duplicate guard drops a call already made.
 */
export function createPlanner(deps: { model: (o: { temperature: number; maxTokens: number }) => BaseChatModel | null }) {
  return async function planner(state: ContractQaStateType, config: LangGraphRunnableConfig): Promise<ContractQaUpdate> {
    const done = new Set(state.tool_history.map((h) => h.signature));
    const fresh = (calls: PlannedTool[]) => calls.filter((c) => !done.has(toolSignature(c.tool, c.args)));
    let planned = fresh(planByRules(state));
    let by = 'rules';
    if (planned.length === 0) {
      const model = deps.model({ temperature: 0.3, maxTokens: 500 });
      if (model) {
        const history = state.tool_history.map((h) => `- ${h.tool} (args: ${JSON.stringify(h.args)})`).join('\n') || '(없음)';
        const prompt = fill(PLANNER_PROMPT, {
          question: state.user_message,
          iteration: state.iteration_count,
          max: state.max_iterations,
          tool_count: state.tool_history.length,
          info_count: state.collected_info.length,
          history,
          structure: outlineOf(state),
        });
        const answer = await decideJson(model, [new SystemMessage(PLANNER_SYSTEM), new HumanMessage(prompt)], NextTool, {
          node: 'planner',
          config,
        });
        const p = answer.ok ? answer.value : null;
        if (p) planned = fresh([{ tool: p.tool, args: mapToolParameters(p.tool, p.args), reasoning: p.reasoning }]);
        by = 'model';
      }
    }
    const entry = {
      node: 'planner',
      by,
      next_tool: planned.length ? planned : null,
      ...(planned.length ? {} : { reason: 'nothing new to run (duplicate guard)' }),
    };
    return { next_tool: planned.length ? planned : null, decision_log: [...state.decision_log, entry] };
  };
}

function planByRules(state: ContractQaStateType): PlannedTool[] {
  const refs = extractArticleRefs(state.user_message);
  if (refs.articles.length || refs.exhibits.length) {
    return [
      {
        tool: 'get_article_by_index',
        args: { article_numbers: refs.articles, exhibit_numbers: refs.exhibits },
        reasoning: 'the question names articles',
      },
    ];
  }
  if (state.tool_history.length === 0) {
    return [
      { tool: 'hybrid_search', args: { topics: topicsOf(state.user_message) }, reasoning: 'first search for the topic' },
      { tool: 'get_contract_structure', args: {}, reasoning: 'structure alongside the first search (parallel)' },
    ];
  }
  const unread = unreadHits(state);
  if (unread.length)
    return [
      {
        tool: 'get_article_by_index',
        args: { article_numbers: unread, exhibit_numbers: [] },
        reasoning: 'read the articles the search found',
      },
    ];
  return [];
}

/** Articles the searches found whose full text has not been read yet (the best `limit` of them). */
export function unreadHits(state: ContractQaStateType, limit = 3): number[] {
  const read = new Set(state.collected_info.flatMap((c) => c.articles?.filter((a) => !a.standard).map((a) => a.index) ?? []));
  const found = state.collected_info
    .filter((c) => c.tool === 'hybrid_search')
    .flatMap((c) => c.hits ?? [])
    .map((h) => h.index);
  return [...new Set(found)].filter((i) => !read.has(i)).slice(0, limit);
}

/** should_execute_parallel: several tools at once, or several articles fetched one by one in parallel. */
export function should_execute_parallel(s: ContractQaStateType): 'parallel' | 'sequential' | 'respond' {
  if (!s.next_tool?.length) return 'respond';
  const first = s.next_tool[0];
  const many =
    s.next_tool.length > 1 || (first.tool === 'get_article_by_index' && ((first.args.article_numbers as unknown[])?.length ?? 0) > 1);
  return many ? 'parallel' : 'sequential';
}

/** The contract's outline for the planner: its articles and exhibits by number and title. */
function outlineOf(state: ContractQaStateType): string {
  const structure = state.contract_structure;
  if (!structure) return '(아직 조회하지 않음)';
  return [...structure.articles, ...structure.exhibits].map((a) => `${a.number} (${a.title})`).join(', ');
}
