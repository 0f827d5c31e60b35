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

/** An agent: a provider whose graph gets the tools it names and the service's model. */
@OrchestratorAgent({ name: 'orders', description: 'Answers questions about orders', tools: ['order_status'] })
@Injectable()
export class OrdersAgent {
  graph({ model, tools }: HostAgentContext) {
    if (!model) throw new Error('the orders agent needs a model (LLM_BASE_URL)');
    return createReactAgent({ llm: model as never, tools, prompt: 'You answer questions about orders. Look orders up with order_status.' });
  }
}
