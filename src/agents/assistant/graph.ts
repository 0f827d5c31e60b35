import type { AIMessage } from '@langchain/core/messages';
import { type BaseCheckpointSaver, END, type LangGraphRunnableConfig, START, StateGraph } from '@langchain/langgraph';

import type { DocumentsService } from '../../knowledge/documents/documents.service';
import { createMemoryNode } from '../../memory/memory.node';
import type { MemoryLimits } from '../../memory/memory-policy';
import { runToolCalls, type ToolRunOptions, uniqueSources } from '../shared/tool-executor';
import { type AgentNodeDeps, createAgentNode } from './nodes/agent.node';
import { createLongTermMemoryNode, LONG_TERM_MEMORY_NODE } from './nodes/long-term-memory.node';
import { createRagNode } from './nodes/rag.node';
import { createRouterNode } from './nodes/router.node';
import { AssistantState, type AssistantStateType } from './state';

export interface AssistantDeps extends AgentNodeDeps {
  documents: DocumentsService;
  memory: MemoryLimits;
  toolRun?: ToolRunOptions;
  /** whether the store ranks searches by meaning (else recall gives the user's newest facts) */
  rankedRecall?: () => boolean;
}

/** router → (rag →) memory → long_term_memory → agent ⇄ tools → END (seed 001, plus memories across sessions). */
export function buildAssistantGraph(deps: AssistantDeps, checkpointer?: BaseCheckpointSaver) {
  const tools = async function tools(state: AssistantStateType, config: LangGraphRunnableConfig) {
    const last = state.messages[state.messages.length - 1] as AIMessage;
    const { messages, records, sources } = await runToolCalls(last, deps.tools, config, deps.toolRun);
    return { messages, tool_calls: [...state.tool_calls, ...records], sources: uniqueSources([...state.sources, ...sources]) };
  };
  const memory = createMemoryNode({ model: deps.model, limits: deps.memory });
  return new StateGraph(AssistantState)
    .addNode('router', createRouterNode({ model: deps.model, hasDocuments: () => deps.documents.hasAny() }))
    .addNode('rag', createRagNode(deps.documents))
    .addNode('memory', async (s: AssistantStateType, c: LangGraphRunnableConfig) => {
      const update = await memory(s, c);
      return { ...update, summarised: 'summary' in update };
    })
    .addNode(LONG_TERM_MEMORY_NODE, createLongTermMemoryNode({ model: deps.model, ranked: deps.rankedRecall ?? (() => false) }))
    .addNode('agent', createAgentNode(deps))
    .addNode('tools', tools)
    .addEdge(START, 'router')
    .addConditionalEdges('router', (s) => (s.route === 'rag' ? 'rag' : 'memory'), ['rag', 'memory'])
    .addEdge('rag', 'memory')
    .addEdge('memory', LONG_TERM_MEMORY_NODE)
    .addEdge(LONG_TERM_MEMORY_NODE, 'agent')
    .addConditionalEdges('agent', (s) => (s.next_action === 'tools' ? 'tools' : END), ['tools', END])
    .addEdge('tools', 'agent')
    .compile({ checkpointer, name: 'assistant' });
}
