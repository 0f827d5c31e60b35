import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';

import { answerLanguageInstruction, localize, turnLanguage } from '../../../core/language';
import { askModel } from '../../shared/model-call';
import { type AgentCard, agentResultsBlock, SUPERVISOR_TEXTS, supervisorPrompt } from '../prompts';
import { delegateByRules } from '../rules';
import type { SupervisorStateType, SupervisorUpdate } from '../state';
import { parseSupervisorReply } from '../supervisor-reply';

/**
 * supervisor_route: delegate to an agent (`Delegate:` / `Task:`) or answer (`Final Answer:`). Rules may take
 * the first delegation; unknown agent names get a correction instead of running; at most `max_routings`.
 */
export function createSupervisorRoute(deps: { model: () => BaseChatModel | null; agents: AgentCard[] }) {
  const names = deps.agents.map((a) => a.name);
  return async function supervisor_route(state: SupervisorStateType, config: LangGraphRunnableConfig): Promise<SupervisorUpdate> {
    const language = turnLanguage(config, state.user_message);
    const texts = localize(SUPERVISOR_TEXTS, language);
    if (state.routing_count >= state.max_routings) {
      const last = state.agent_outputs.at(-1)?.output ?? '';
      return finish(`${last}\n\n(${texts.routingLimit})`.trim());
    }
    if (state.agent_outputs.length === 0 && state.notes.length === 0) {
      const ruled = delegateByRules(state.user_message, names);
      if (ruled) return delegate(state, ruled, state.user_message);
    }
    const model = deps.model();
    if (!model) {
      return finish(state.agent_outputs.map((o) => o.output).join('\n\n') || texts.noAgent);
    }
    const request = `${state.user_message}${agentResultsBlock(state.agent_outputs)}${state.notes.length ? `\n\n[알림]\n${state.notes.join('\n')}` : ''}`;
    const reply = await askModel(
      model,
      [
        new SystemMessage(`${supervisorPrompt(deps.agents)}\n\n${answerLanguageInstruction(language)}`),
        ...state.messages.slice(0, -1),
        new HumanMessage(request),
      ],
      config,
    );
    const parsed = parseSupervisorReply(reply, state.user_message);
    if (parsed.kind === 'final') return finish(parsed.answer);
    if (!names.includes(parsed.agent)) {
      return {
        next_agent: null,
        routing_count: state.routing_count + 1,
        notes: [...state.notes, `"${parsed.agent}"라는 에이전트는 없습니다. 다음 중에서 고르세요: ${names.join(', ')}`],
      };
    }
    return delegate(state, parsed.agent, parsed.task);
  };
}

function finish(answer: string): SupervisorUpdate {
  return { next_agent: null, final_response: answer, messages: [new AIMessage(answer)] };
}

function delegate(state: SupervisorStateType, agent: string, task: string): SupervisorUpdate {
  return {
    next_agent: agent,
    task,
    routing_count: state.routing_count + 1,
    delegations: [...state.delegations, { agent, task, order: state.delegations.length + 1 }],
  };
}
