import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { type BaseCheckpointSaver, END, type LangGraphRunnableConfig, START, StateGraph } from '@langchain/langgraph';

import type { SubAgent } from './a2a-sub-agent';
import { createSupervisorRoute } from './nodes/supervisor-route.node';
import { SupervisorState, type SupervisorStateType, type SupervisorUpdate } from './state';

/** supervisor_route → (agent → supervisor_route)* → END (seed 003). */
export function buildSupervisorGraph(deps: { model: () => BaseChatModel | null; agents: SubAgent[] }, checkpointer?: BaseCheckpointSaver) {
  // node names are the configured agents' (SUPERVISOR_AGENTS): typed as `string`
  const graph: StateGraph<typeof SupervisorState.spec, SupervisorStateType, SupervisorUpdate, string> = new StateGraph(SupervisorState);
  // the agents themselves: a remote agent's description (its card) is read on every routing
  graph.addNode('supervisor_route', createSupervisorRoute({ model: deps.model, agents: deps.agents }));
  for (const agent of deps.agents) {
    graph.addNode(agent.name, async (state: SupervisorStateType, config: LangGraphRunnableConfig) => {
      const { output, records, sources } = await agent.run(state.task, state.messages, config);
      return {
        agent_outputs: [...state.agent_outputs, { agent: agent.name, task: state.task, output }],
        tool_calls: [...state.tool_calls, ...records],
        sources: [...state.sources, ...sources],
        next_agent: null,
      };
    });
  }
  const names = deps.agents.map((a) => a.name);
  const route = (s: SupervisorStateType) =>
    s.next_agent && names.includes(s.next_agent) ? s.next_agent : s.final_response ? END : 'supervisor_route';
  graph.addEdge(START, 'supervisor_route');
  graph.addConditionalEdges('supervisor_route', route, [...names, 'supervisor_route', END]);
  for (const n of names) graph.addEdge(n, 'supervisor_route');
  return graph.compile({ checkpointer, name: 'supervisor' });
}
