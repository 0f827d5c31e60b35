import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseStore, LangGraphRunnableConfig } from '@langchain/langgraph';

import { localize, turnLanguage } from '../../../core/language';
import { decideFacts } from '../../../memory/long-term/fact-decision';
import { scanForFacts, type StatedFact } from '../../../memory/long-term/fact-rules';
import { recallFacts, saveFacts } from '../../../memory/long-term/fact-store';
import { RECALLED_FACTS_HEADER } from '../prompts';
import type { AssistantStateType, AssistantUpdate } from '../state';

/** The node's name in the graph (between `memory` and `agent`). */
export const LONG_TERM_MEMORY_NODE = 'long_term_memory';

/** The user a run acts for (a bearer token's user; none for an API key or an open service: memories are off). */
export function runUserOf(config: LangGraphRunnableConfig): string | undefined {
  const id = config.configurable?.langgraph_auth_user_id;
  return typeof id === 'string' && id ? id : undefined;
}

/**
 * long_term_memory: the user's memories across sessions, kept in the tenant's LangGraph store (`config.store`)
 * under `["memories", <user>]`. Saves the durable facts the message states (rules first; only self-descriptions
 * the rules cannot classify go to ONE model decision) and recalls the facts relevant to the message for the
 * agent's system prompt. Without a user or a store it does nothing; a store or model failure leaves the turn
 * without memories rather than failing it.
 */
export function createLongTermMemoryNode(deps: { model: () => BaseChatModel | null; ranked?: () => boolean }) {
  return async function long_term_memory(state: AssistantStateType, config: LangGraphRunnableConfig): Promise<AssistantUpdate> {
    const user = runUserOf(config);
    const store = config.store;
    if (!user || !store) return {};
    // one after the other: the embedded Postgres has one connection, which a run's own writes may be holding
    const recalled = await guarded(config, () => recallFacts(store, user, state.user_message, { ranked: deps.ranked?.() ?? false }), []);
    const saved = await guarded(config, () => remember(store, user, state.user_message, config), { facts: [], by: 'rules' as const });
    const language = turnLanguage(config, state.user_message);
    const memories = recalled.length
      ? `${localize(RECALLED_FACTS_HEADER, language)}\n${recalled.map((f) => `- ${f.text}`).join('\n')}`
      : '';
    return { memories, recalled: recalled.map((f) => f.text), remembered: saved.facts.map((f) => f.kind), remembered_by: saved.by };
  };

  async function remember(
    store: BaseStore,
    user: string,
    message: string,
    config: LangGraphRunnableConfig,
  ): Promise<{ facts: StatedFact[]; by: 'rules' | 'model' }> {
    const scan = scanForFacts(message);
    const model = scan.ambiguous.length > 0 ? deps.model() : null;
    const decided = model ? await decideFacts(model, scan.ambiguous, config, LONG_TERM_MEMORY_NODE) : [];
    const facts = [...scan.facts, ...decided];
    const session = typeof config.metadata?.session_id === 'string' ? config.metadata.session_id : null;
    await saveFacts(store, user, facts, session);
    return { facts, by: model ? 'model' : 'rules' };
  }
}

/** `fn`'s result, or `fallback` when it fails (a cancelled run still stops). */
async function guarded<T>(config: LangGraphRunnableConfig, fn: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (config.signal?.aborted) throw err;
    return fallback;
  }
}
