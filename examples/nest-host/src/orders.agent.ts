import { AIMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { createReactAgent, ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { Injectable } from '@nestjs/common';
import { type HostAgentContext, OrchestratorAgent, OrchestratorTool } from 'agent-orchestrator';
import { z } from 'zod';

import { OrdersService } from './orders.service';

/** A tool: a provider method with a zod schema; the service calls it with the parsed arguments. */
@Injectable()
export class OrderTools {
  constructor(private readonly orders: OrdersService) {}

  @OrchestratorTool({
    name: 'order_status',
    description: 'The shipping status of one order',
    schema: z.object({ orderId: z.string().describe('the order id, e.g. A-17') }),
  })
  orderStatus({ orderId }: { orderId: string }) {
    return this.orders.status(orderId) ?? { error: `no order ${orderId}` };
  }
}

/** An agent: a provider whose graph gets the tools it names and the service's model (null when none is configured). */
@OrchestratorAgent({ name: 'orders', description: 'Answers questions about orders', tools: ['order_status'] })
@Injectable()
export class OrdersAgent {
  graph({ model, tools }: HostAgentContext) {
    if (!model) return lookupByRule(tools);
    return createReactAgent({ llm: model as never, tools, prompt: 'You answer questions about orders. Look orders up with order_status.' });
  }
}

/** Without a model: the order id found by a rule in the question, looked up with the same tool. */
function lookupByRule(tools: StructuredToolInterface[]) {
  return new StateGraph(MessagesAnnotation)
    .addNode('find_order', ({ messages }) => {
      const orderId = /\b[A-Z]-\d+\b/.exec(String(messages.at(-1)?.content))?.[0];
      if (!orderId) return { messages: [new AIMessage('Which order? Give its id, e.g. A-17.')] };
      return {
        messages: [new AIMessage({ content: '', tool_calls: [{ id: `lookup-${orderId}`, name: 'order_status', args: { orderId } }] })],
      };
    })
    .addNode('tools', new ToolNode(tools))
    .addNode('answer', ({ messages }) => ({ messages: [new AIMessage(`Order status: ${String(messages.at(-1)?.content)}`)] }))
    .addEdge(START, 'find_order')
    .addConditionalEdges('find_order', toolsCondition, ['tools', END])
    .addEdge('tools', 'answer')
    .addEdge('answer', END);
}
