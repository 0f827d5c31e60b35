/**
 * The bare stack the service is made of, for the floor benchmarks: the ReAct + calculator graph
 * (`StateGraph(MessagesAnnotation)`, a `ChatOpenAI` node bound to the tool, a prebuilt `ToolNode`) with no
 * checkpointer, LangGraph's `MemorySaver` or the official `PostgresSaver`.
 */
import { tool } from '@langchain/core/tools';
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { ChatOpenAI } from '@langchain/openai';
import { evaluate } from 'mathjs';
import { z } from 'zod';

/** `setup`: create the PostgresSaver's tables (one process at a time: its migrations take no lock) */
export async function floorGraph(modelUrl: string, checkpointer: string, dbUrl?: string, setup = true) {
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
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', async (s) => ({ messages: [await model.invoke(s.messages)] }))
    .addNode('tools', new ToolNode([calculator]))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (s) => ((s.messages.at(-1) as { tool_calls?: unknown[] }).tool_calls?.length ? 'tools' : END), [
      'tools',
      END,
    ])
    .addEdge('tools', 'agent')
    .compile({ checkpointer: pg ?? (checkpointer === 'memory' ? new MemorySaver() : undefined) });
  return { graph, saver: pg };
}
