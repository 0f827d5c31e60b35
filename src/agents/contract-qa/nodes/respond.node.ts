import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';

import { answerLanguageInstruction, type Language, localize, turnLanguage } from '../../../core/language';
import { articleCovers, topicsOfQuestion } from '../../../knowledge/contracts/contract-topics';
import { asUntrustedData } from '../../../tools/untrusted';
import type { Source } from '../../agent-definition';
import { askModel } from '../../shared/model-call';
import { fill } from '../../shared/text';
import { CONTRACT_QA_TEXTS, RESPOND_SYSTEM, RESPOND_USER } from '../prompts';
import type { ContractQaStateType, ContractQaUpdate } from '../state';

/** respond: answers only from the collected contract text (temperature 0.3, 1000 tokens), with sources. */
export function createRespond(deps: { model: (o: { temperature: number; maxTokens: number }) => BaseChatModel | null }) {
  return async function respond(state: ContractQaStateType, config: LangGraphRunnableConfig): Promise<ContractQaUpdate> {
    const language = turnLanguage(config, state.user_message);
    const texts = localize(CONTRACT_QA_TEXTS, language);
    const { sources, context } = collected(state, language);
    const missing = missingClauses(state, language);
    const model = deps.model({ temperature: 0.3, maxTokens: 1000 });
    let text: string;
    if (!state.contract_id) text = texts.noContract;
    else if (!context && state.tool_history.length === 0)
      text = model ? await ask(model, state.user_message, '', language, config) : texts.directReply;
    else if (!context) text = missing || texts.notFound;
    else if (!model) text = missing ? `${missing} ${texts.nearest}\n\n${context}` : `${texts.found}\n\n${context}`;
    else text = await ask(model, state.user_message, context, language, config, missing);
    return { final_response: text, sources, messages: [new AIMessage(text)] };
  };
}

async function ask(
  model: BaseChatModel,
  question: string,
  context: string,
  language: Language,
  config: LangGraphRunnableConfig,
  missing = '',
): Promise<string> {
  const user = context ? fill(RESPOND_USER, { context: asUntrustedData(context, { source: 'contract' }), question }) : question;
  const noClause = missing ? `\n7. The articles were searched for every topic of the question; say plainly: "${missing}"` : '';
  const system = `${RESPOND_SYSTEM}\n6. ${answerLanguageInstruction(language)}${noClause}`;
  return askModel(model, [new SystemMessage(system), new HumanMessage(user)], config);
}

/**
 * Everything the tools collected, as `respond`'s context and the answer's sources: articles and exhibits with
 * their text, then search hits whose article was not read (their snippet) — never emptier than what was found.
 */
export function collected(state: ContractQaStateType, language: Language): { sources: Source[]; context: string } {
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
    ...hits.map((h) => `[${h.number} ${h.title}] ${localize(CONTRACT_QA_TEXTS, language).excerpt}\n${h.snippet}`),
  ].join('\n\n');
  return { sources, context };
}

/**
 * The sentence saying the contract has no clause on a topic the question asks about ('' when every topic has
 * one): said only after a search ran, judged on every article the tools found or read.
 */
export function missingClauses(state: ContractQaStateType, language: Language): string {
  // only a topic the search looked for (its words in a hybrid_search call) can be said to be missing
  const searched = state.tool_history.filter((h) => h.tool === 'hybrid_search').map((h) => JSON.stringify(h.args));
  const seen = [
    ...state.collected_info.flatMap((c) => c.articles ?? []).filter((a) => !a.standard),
    ...state.collected_info
      .filter((c) => c.tool === 'hybrid_search')
      .flatMap((c) => (c.hits ?? []).map((h) => ({ ...h, text: h.snippet }))),
  ];
  const texts = localize(CONTRACT_QA_TEXTS, language);
  return topicsOfQuestion(state.user_message)
    .filter((topic) => searched.some((args) => topic.question.test(args)) && !seen.some((a) => articleCovers(a, topic)))
    .map((topic) => fill(texts.noClause, { topic: topic.label[language === 'ko' ? 'ko' : 'en'] }))
    .join(' ');
}

function dedupe<T extends { number: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((i) => !seen.has(i.number) && seen.add(i.number));
}
