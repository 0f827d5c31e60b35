import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { type BaseCheckpointSaver, END, START, StateGraph } from '@langchain/langgraph';

import type { ToolRunOptions } from '../shared/tool-executor';
import { createCheckToolNeeded, should_use_tools } from './nodes/check-tool-needed.node';
import { createEvaluator, should_continue } from './nodes/evaluator.node';
import { createExecutors } from './nodes/executor.node';
import { createPlanner, should_execute_parallel } from './nodes/planner.node';
import { createRespond } from './nodes/respond.node';
import { ContractQaState } from './state';

export interface ContractQaDeps {
  model: (o: { temperature: number; maxTokens: number }) => BaseChatModel | null;
  tools: StructuredToolInterface[];
  toolRun?: ToolRunOptions;
}

/** check_tool_needed → planner → executor | parallel_executor → evaluator ⟲ planner → respond (seed 000). */
export function buildContractQaGraph(deps: ContractQaDeps, checkpointer?: BaseCheckpointSaver) {
  const { executor, parallel_executor, read_found } = createExecutors(deps.tools, deps.toolRun);
  return new StateGraph(ContractQaState)
    .addNode('check_tool_needed', createCheckToolNeeded(deps))
    .addNode('planner', createPlanner(deps))
    .addNode('executor', executor)
    .addNode('parallel_executor', parallel_executor)
    .addNode('evaluator', createEvaluator(deps))
    .addNode('read_found', read_found)
    .addNode('respond', createRespond(deps))
    .addEdge(START, 'check_tool_needed')
    .addConditionalEdges('check_tool_needed', should_use_tools, { use_tools: 'planner', direct_response: 'respond' })
    .addConditionalEdges('planner', should_execute_parallel, { parallel: 'parallel_executor', sequential: 'executor', respond: 'respond' })
    .addEdge('executor', 'evaluator')
    .addEdge('parallel_executor', 'evaluator')
    .addConditionalEdges('evaluator', should_continue, { continue: 'planner', read_found: 'read_found', finish: 'respond' })
    .addEdge('read_found', 'respond')
    .addEdge('respond', END)
    .compile({ checkpointer, name: 'contract-qa' });
}
