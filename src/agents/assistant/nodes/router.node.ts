import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { z } from 'zod';

import { decideJson } from '../../../llm/decide-json';
import { ROUTER_PROMPT } from '../prompts';
import { routeByRules } from '../rules';
import type { AssistantStateType, AssistantUpdate } from '../state';

const RouteDecision = z.object({ route: z.enum(['rag', 'agent']), reason: z.string().default('') });

/** router: rules first; the model's `{route, reason}` (temperature 0) only when they can't tell. */
export function createRouterNode(deps: { model: () => BaseChatModel | null; hasDocuments: () => Promise<boolean> }) {
  return async function router(state: AssistantStateType, config: LangGraphRunnableConfig): Promise<AssistantUpdate> {
    const ruled = routeByRules(state.user_message, await deps.hasDocuments());
    if (ruled) return { route: ruled.route, route_reason: ruled.reason, route_by: 'rules' };
    const model = deps.model();
    if (!model) return { route: 'rag', route_reason: 'no model: search the documents first', route_by: 'default' };
    try {
      const decision = await decideJson(model, [new SystemMessage(ROUTER_PROMPT), new HumanMessage(state.user_message)], RouteDecision, {
        node: 'router',
        config,
      });
      if (decision.ok) return { route: decision.value.route, route_reason: decision.value.reason, route_by: 'model' };
    } catch (err) {
      if (config.signal?.aborted) throw err;
    }
    return { route: 'agent', route_reason: 'router could not decide', route_by: 'default' };
  };
}
