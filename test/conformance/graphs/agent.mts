import type { BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Annotation, END, messagesStateReducer, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';

/**
 * A tool-calling agent on an OpenAI-compatible model at `CONFORMANCE_MODEL_URL` (the tests' scripted model):
 * `agent` asks the model, `tools` runs the weather tool it calls, then the model again.
 */
const State = Annotation.Root({
  messages: Annotation<BaseMessage[]>({ reducer: messagesStateReducer, default: () => [] }),
});

const weather = tool(async ({ city }: { city: string }) => `${city}: 21 degrees, sunny`, {
  name: 'weather',
  description: 'the weather in a city',
  schema: z.object({ city: z.string() }),
});

async function agent(state: typeof State.State) {
  const model = new ChatOpenAI({
    model: 'scripted',
    apiKey: 'test',
    streaming: true,
    maxRetries: 0,
    configuration: { baseURL: process.env.CONFORMANCE_MODEL_URL },
  }).bindTools([weather]);
  return { messages: [await model.invoke(state.messages)] };
}

export const graph = new StateGraph(State)
  .addNode('agent', agent)
  .addNode('tools', new ToolNode([weather]))
  .addEdge(START, 'agent')
  .addConditionalEdges('agent', toolsCondition, ['tools', END])
  .addEdge('tools', 'agent')
  .compile();
