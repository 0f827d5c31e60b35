import { type BaseCheckpointSaver, END, START, StateGraph } from '@langchain/langgraph';

import { error } from './nodes/error.node';
import { input } from './nodes/input.node';
import { createLlmNode, type LlmNodeDeps } from './nodes/llm.node';
import { response } from './nodes/response.node';
import { createToolNode } from './nodes/tool.node';
import { ReactState, type ReactStateType } from './state';

/** Node names are the seed's classes; the ConditionalNode is the routing function after LlmNode. */
const NODE = { tool: 'ToolNode', response: 'ResponseNode', error: 'ErrorNode' } as const;

/** ConditionalNode: error (iteration limit, model failure) → error; tool requests → tool; otherwise → response. */
export function ConditionalNode(state: ReactStateType): 'tool' | 'response' | 'error' {
  if (state.error) return 'error';
  const last = state.messages[state.messages.length - 1] as { tool_calls?: unknown[] } | undefined;
  if (last?.tool_calls?.length) return 'tool';
  return 'response';
}

export function buildReactGraph(deps: LlmNodeDeps, checkpointer?: BaseCheckpointSaver, name = 'react') {
  return new StateGraph(ReactState)
    .addNode('InputNode', input)
    .addNode('LlmNode', createLlmNode(deps))
    .addNode('ToolNode', createToolNode(deps.tools, deps.toolRun))
    .addNode('ResponseNode', response)
    .addNode('ErrorNode', error)
    .addEdge(START, 'InputNode')
    .addConditionalEdges('InputNode', (s) => (s.error ? 'ErrorNode' : 'LlmNode'), ['LlmNode', 'ErrorNode'])
    .addConditionalEdges('LlmNode', (s) => NODE[ConditionalNode(s)], Object.values(NODE))
    .addEdge('ToolNode', 'LlmNode')
    .addEdge('ResponseNode', END)
    .addEdge('ErrorNode', END)
    .compile({ checkpointer, name });
}
