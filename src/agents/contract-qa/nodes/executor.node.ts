import type { StructuredToolInterface } from '@langchain/core/tools';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';

import { type CollectedInfo, mapToolParameters, toolSignature } from '../../../tools/contract/contract-tools';
import { executeTool, type ToolRunOptions } from '../../shared/tool-executor';
import { retryTransient } from '../../shared/tool-retry';
import type { ContractQaStateType, ContractQaUpdate, PlannedTool, ToolHistoryEntry } from '../state';
import { unreadHits } from './planner.node';

/** seed 000: up to 2 retries — of transient failures only */
const RETRY = retryTransient(2);

/** executor / parallel_executor: parameter mapping, up to 2 retries of transient failures, results into tool_history and collected_info. */
export function createExecutors(tools: StructuredToolInterface[], toolRun: ToolRunOptions = {}) {
  const byName = new Map(tools.map((t) => [t.name, t]));

  async function run(
    call: PlannedTool,
    contractId: string,
    config: LangGraphRunnableConfig,
  ): Promise<{ entry: ToolHistoryEntry; info?: CollectedInfo }> {
    const args = mapToolParameters(call.tool, call.args);
    const signature = toolSignature(call.tool, call.args);
    const result = await executeTool(byName.get(call.tool), { name: call.tool, args: { ...args, contract_id: contractId } }, config, {
      ...toolRun,
      retry: RETRY,
    });
    const entry = { tool: call.tool, args: call.args, signature, attempts: result.attempts };
    if (!result.ok) return { entry: { ...entry, status: 'error', summary: result.text.replace(/^Error: /, '').slice(0, 200) } };
    const info = result.output as CollectedInfo;
    return { entry: { ...entry, status: 'success', summary: info.summary }, info };
  }

  async function apply(state: ContractQaStateType, calls: PlannedTool[], config: LangGraphRunnableConfig): Promise<ContractQaUpdate> {
    const results = await Promise.all(calls.map((c) => run(c, state.contract_id, config)));
    const infos = results.flatMap((r) => (r.info ? [r.info] : []));
    const structure = infos.find((i) => i.tool === 'get_contract_structure');
    const explored = [
      ...new Set([...state.explored_articles, ...infos.flatMap((i) => i.articles?.filter((a) => !a.standard).map((a) => a.index) ?? [])]),
    ];
    const all = structure?.hits?.map((h) => h.index) ?? state.unexplored_articles.concat(state.explored_articles);
    return {
      tool_history: [...state.tool_history, ...results.map((r) => r.entry)],
      collected_info: [...state.collected_info, ...infos],
      contract_structure: structure
        ? { articles: structure.hits ?? [], exhibits: structure.exhibit_titles ?? [], summary: structure.summary }
        : state.contract_structure,
      explored_articles: explored,
      unexplored_articles: [...new Set(all)].filter((i) => !explored.includes(i)).sort((a, b) => a - b),
      next_tool: null,
    };
  }

  return {
    executor: async function executor(state: ContractQaStateType, config: LangGraphRunnableConfig) {
      return apply(state, state.next_tool ?? [], config);
    },
    /** several tools together; a multi-article lookup split into one call per article */
    parallel_executor: async function parallel_executor(state: ContractQaStateType, config: LangGraphRunnableConfig) {
      const calls = (state.next_tool ?? []).flatMap((c) => {
        const numbers = c.tool === 'get_article_by_index' ? ((c.args.article_numbers as number[]) ?? []) : [];
        if (numbers.length <= 1) return [c];
        return numbers.map((n, i) => ({
          ...c,
          args: { article_numbers: [n], exhibit_numbers: i === 0 ? (c.args.exhibit_numbers ?? []) : [] },
        }));
      });
      return apply(state, calls, config);
    },
    /**
     * read_found (a rule, no model call): when the evaluator stopped before the articles the search found were
     * read, fetch them in full so `respond` answers from their text, not from nothing.
     */
    read_found: async function read_found(state: ContractQaStateType, config: LangGraphRunnableConfig): Promise<ContractQaUpdate> {
      const unread = unreadHits(state);
      const calls = unread.map((n) => ({
        tool: 'get_article_by_index',
        args: { article_numbers: [n], exhibit_numbers: [] },
        reasoning: 'read an article the search found before answering',
      }));
      const update = await apply(state, calls, config);
      return { ...update, decision_log: [...state.decision_log, { node: 'read_found', articles: unread, by: 'rules' }] };
    },
  };
}
