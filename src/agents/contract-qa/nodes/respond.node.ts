import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';

import type { Source } from '../../agent-definition';
import { askModel } from '../../shared/model-call';
import { fill } from '../../shared/text';
import { DIRECT_REPLY, NO_CONTRACT, RESPOND_SYSTEM, RESPOND_USER } from '../prompts';
import type { ContractQaStateType, ContractQaUpdate } from '../state';

/** respond: answers only from the collected contract text (temperature 0.3, 1000 tokens), with sources. */
export function createRespond(deps: { model: (o: { temperature: number; maxTokens: number }) => BaseChatModel | null }) {
  return async function respond(state: ContractQaStateType, config: LangGraphRunnableConfig): Promise<ContractQaUpdate> {
    const { sources, context } = collected(state);
    const model = deps.model({ temperature: 0.3, maxTokens: 1000 });
    let text: string;
    if (!state.contract_id) text = NO_CONTRACT;
    else if (!context && state.tool_history.length === 0) text = model ? await ask(model, state.user_message, '', config) : DIRECT_REPLY;
    else if (!context) text = '계약서에서 질문과 관련된 조항을 찾지 못했습니다. 다른 표현으로 물어보시거나 조 번호를 알려 주세요.';
    else if (!model) text = `관련 조항입니다:\n\n${context}`;
    else text = await ask(model, state.user_message, context, config);
    return { final_response: text, sources, messages: [new AIMessage(text)] };
  };
}

async function ask(model: BaseChatModel, question: string, context: string, config: LangGraphRunnableConfig): Promise<string> {
  const user = context ? fill(RESPOND_USER, { context, question }) : question;
  return askModel(model, [new SystemMessage(RESPOND_SYSTEM), new HumanMessage(user)], config);
}

/**
 * Everything the tools collected, as `respond`'s context and the answer's sources: articles and exhibits with
 * their text, then search hits whose article was not read (their snippet) — never emptier than what was found.
 */
export function collected(state: ContractQaStateType): { sources: Source[]; context: string } {
  const articles = dedupe(state.collected_info.flatMap((c) => c.articles ?? []));
  const exhibits = dedupe(state.collected_info.flatMap((c) => c.exhibits ?? []));
  const read = new Set(articles.filter((a) => !a.standard).map((a) => a.number));
  const hits = dedupe(state.collected_info.filter((c) => c.tool === 'hybrid_search').flatMap((c) => c.hits ?? [])).filter(
    (h) => !read.has(h.number),
  );
  const sources: Source[] = [
    ...articles.map((a) => ({
      kind: a.standard ? 'standard_article' : 'contract_article',
      ref: a.number,
      title: a.title,
      contract_id: a.contract_id,
    })),
    ...exhibits.map((e) => ({ kind: 'contract_exhibit', ref: e.number, title: e.title, contract_id: state.contract_id })),
    ...hits.map((h) => ({ kind: 'contract_article', ref: h.number, title: h.title, contract_id: state.contract_id, excerpt: true })),
  ];
  const context = [
    ...articles.map((a) => `[${a.number} ${a.title}]\n${a.text}`),
    ...exhibits.map((e) => `[${e.number} ${e.title}]\n${e.content}`),
    ...hits.map((h) => `[${h.number} ${h.title}] (검색 결과 발췌)\n${h.snippet}`),
  ].join('\n\n');
  return { sources, context };
}

function dedupe<T extends { number: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((i) => !seen.has(i.number) && seen.add(i.number));
}
