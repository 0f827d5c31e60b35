/**
 * The bare stack the service is made of, for the floor benchmarks: the ReAct + calculator graph
 * (`StateGraph(MessagesAnnotation)`, a `ChatOpenAI` node bound to the tool, a prebuilt `ToolNode`) with no
 * checkpointer, LangGraph's `MemorySaver` or the official `PostgresSaver`.
 */
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import {
  type BaseCheckpointSaver,
  END,
  type LangGraphRunnableConfig,
  MemorySaver,
  MessagesAnnotation,
  START,
  StateGraph,
} from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { ChatOpenAI } from '@langchain/openai';
import { evaluate } from 'mathjs';
import { z } from 'zod';

import { buildReactGraph } from '../../src/agents/react/graph';
import { turnInput } from '../../src/agents/react/state';

/**
 * `setup`: create the PostgresSaver's tables (one process at a time: its migrations take no lock). `shape`:
 * `bare` is LangGraph's own react graph; `agent` is the service's react graph (src/agents/react: the agent's five
 * nodes and twelve state fields) on the same bare model and checkpointer, to tell the graph's share of a turn from
 * the service's.
 */
export async function floorGraph(modelUrl: string, checkpointer: string, dbUrl?: string, setup = true, shape = 'bare') {
  const calculator = tool(async ({ expression }: { expression: string }) => String(evaluate(expression)), {
    name: 'calculator',
    description: 'Evaluates an arithmetic expression',
    schema: z.object({ expression: z.string() }),
  });
  const model = new ChatOpenAI({ model: 'bench', apiKey: 'bench', configuration: { baseURL: modelUrl }, maxRetries: 0 }).bindTools([
    calculator,
  ]);
  const pg = checkpointer === 'postgres' ? PostgresSaver.fromConnString(dbUrl!) : undefined;
  if (pg && setup) await pg.setup();
  const saver = pg ?? (checkpointer === 'memory' ? new MemorySaver() : undefined);
  if (shape === 'agent') return { graph: agentGraph(modelUrl, calculator, saver), saver: pg };
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', async (s) => ({ messages: [await model.invoke(s.messages)] }))
    .addNode('tools', new ToolNode([calculator]))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (s) => ((s.messages.at(-1) as { tool_calls?: unknown[] }).tool_calls?.length ? 'tools' : END), [
      'tools',
      END,
    ])
    .addEdge('tools', 'agent')
    .compile({ checkpointer: saver });
  return { graph, saver: pg };
}

/** The service's react graph with a bare `ChatOpenAI` (native tool calling), taking the same `{ messages }` input */
function agentGraph(modelUrl: string, calculator: StructuredToolInterface, saver?: BaseCheckpointSaver) {
  const chat = new ChatOpenAI({ model: 'bench', apiKey: 'bench', configuration: { baseURL: modelUrl }, maxRetries: 0 });
  const graph = buildReactGraph({ model: () => chat, tools: [calculator], toolCalling: () => 'native' }, saver);
  return {
    invoke: (input: { messages: Array<{ content: string }> }, config: LangGraphRunnableConfig) =>
      graph.invoke(turnInput({ message: input.messages[0].content }, { maxIterations: 5 }), config),
    stream: (input: { messages: Array<{ content: string }> }, config: LangGraphRunnableConfig & { streamMode: 'messages' }) =>
      graph.stream(turnInput({ message: input.messages[0].content }, { maxIterations: 5 }), config),
  };
}
