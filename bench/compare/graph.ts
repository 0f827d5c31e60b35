import { tool } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';

/**
 * The graph both servers run in `npm run bench:compare`: ReAct over one `calculator` tool — a model node
 * (ChatOpenAI against the scripted model server, base URL from COMPARE_MODEL_BASE_URL) and a ToolNode in a loop.
 * Plain LangGraph.js, nothing specific to either server.
 */
const calculator = tool(
  ({ expression }: { expression: string }) => {
    if (!/^[\d\s+\-*/().%]+$/.test(expression)) return `cannot evaluate ${JSON.stringify(expression)}`;
    return String(Function(`"use strict"; return (${expression});`)());
  },
  {
    name: 'calculator',
    description: 'Evaluate an arithmetic expression, e.g. "6*7".',
    schema: {
      type: 'object',
      properties: { expression: { type: 'string', description: 'the arithmetic expression' } },
      required: ['expression'],
    },
  },
);

const model = new ChatOpenAI({
  model: process.env.COMPARE_MODEL ?? 'scripted',
  apiKey: process.env.COMPARE_MODEL_API_KEY ?? 'not-used',
  configuration: { baseURL: process.env.COMPARE_MODEL_BASE_URL },
  maxRetries: 0,
}).bindTools([calculator]);

async function agent(state: typeof MessagesAnnotation.State) {
  return { messages: [await model.invoke(state.messages)] };
}

function next(state: typeof MessagesAnnotation.State): 'tools' | typeof END {
  const last = state.messages[state.messages.length - 1] as { tool_calls?: unknown[] };
  return last.tool_calls?.length ? 'tools' : END;
}

export const graph = new StateGraph(MessagesAnnotation)
  .addNode('agent', agent)
  .addNode('tools', new ToolNode([calculator]))
  .addEdge(START, 'agent')
  .addConditionalEdges('agent', next, ['tools', END])
  .addEdge('tools', 'agent')
  .compile();
