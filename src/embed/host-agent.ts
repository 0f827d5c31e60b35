import { HumanMessage } from '@langchain/core/messages';

import type { AgentDefinition, AgentOutcome, AgentState, ToolCallRecord, TurnContext } from '../agents/agent-definition';
import { graphOfExport, responseOf } from '../agents/custom-graphs/custom-graph.agent';
import type { HostAgent, HostAgentContext } from './host-extensions';

type MessageInput = { messages: HumanMessage[] };

/** A host agent as the registry holds every agent: its graph compiled with the service's checkpointer. */
export async function hostAgentDefinition(agent: HostAgent, ctx: HostAgentContext): Promise<AgentDefinition<AgentState, MessageInput>> {
  const graph = await graphOfExport(await agent.graph(ctx), ctx.checkpointer, `host agent "${agent.name}"`);
  return {
    name: agent.name,
    description: agent.description,
    graph,
    scope: agent.scope,
    durability: agent.durability,
    buildInput: (turn: TurnContext) => ({ messages: [new HumanMessage(turn.message)] }),
    toOutcome: (values: AgentState, turn: TurnContext): AgentOutcome => ({
      response: responseOf(values),
      toolCalls: toolCallsOf(values, turn),
      sources: [],
      error: null,
      metadata: { host_agent: agent.name },
      trace: { state_keys: Object.keys(values ?? {}) },
    }),
  };
}

/** The tool calls the AI messages of this turn asked for (the messages after the turn's human message). */
function toolCallsOf(values: AgentState, turn: TurnContext): ToolCallRecord[] {
  const messages = Array.isArray(values?.messages) ? (values.messages as Array<Record<string, unknown>>) : [];
  const start = messages.map((m) => m.content).lastIndexOf(turn.message);
  const calls: ToolCallRecord[] = [];
  for (const m of messages.slice(Math.max(start, 0))) {
    const toolCalls = Array.isArray(m.tool_calls) ? (m.tool_calls as Array<{ name: string; args?: Record<string, unknown> }>) : [];
    for (const c of toolCalls) calls.push({ name: c.name, args: c.args ?? {}, status: 'success' });
  }
  return calls;
}
