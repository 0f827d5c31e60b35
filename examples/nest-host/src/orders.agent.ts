import { AIMessage } from '@langchain/core/messages';
import { MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
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
  constructor(private readonly orders: OrdersService) {}

  graph({ model, tools }: HostAgentContext) {
    if (!model) {
      // no model configured: the order id found by a rule, answered from the host's own service
      return new StateGraph(MessagesAnnotation)
        .addNode('lookup', ({ messages }) => ({ messages: [new AIMessage(this.answerByRule(String(messages.at(-1)?.content)))] }))
        .addEdge(START, 'lookup');
    }
    return createReactAgent({ llm: model as never, tools, prompt: 'You answer questions about orders. Look them up with order_status.' });
  }

  private answerByRule(question: string): string {
    const orderId = /\b[A-Z]-\d+\b/.exec(question)?.[0];
    if (!orderId) return 'Which order? Give its id, e.g. A-17.';
    const order = this.orders.status(orderId);
    if (!order) return `There is no order ${orderId}.`;
    return `Order ${orderId}: ${order.status}${order.carrier ? ` with ${order.carrier}` : ''}.`;
  }
}
