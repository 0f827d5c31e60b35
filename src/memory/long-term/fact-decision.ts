import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { z } from 'zod';

import { detectLanguage } from '../../core/language';
import { decideJson } from '../../llm/decide-json';
import { FACT_KINDS, type StatedFact } from './fact-rules';
import { FACT_DECISION_PROMPT } from './prompts';

const FactDecision = z.object({
  facts: z
    .array(z.object({ kind: z.enum(FACT_KINDS).catch('note'), text: z.string().trim().min(1).max(300) }))
    .max(10)
    .default([]),
});

/**
 * ONE model decision on the statements the rules could not classify (`ambiguous` of scanForFacts): the durable
 * facts among them. A bad answer keeps nothing (never a guess); a model that is down throws (the caller decides).
 */
export async function decideFacts(
  model: BaseChatModel,
  statements: string[],
  config: RunnableConfig | undefined,
  node: string,
): Promise<StatedFact[]> {
  const list = statements.map((s) => `- ${s}`).join('\n');
  const decision = await decideJson(model, [new SystemMessage(FACT_DECISION_PROMPT), new HumanMessage(list)], FactDecision, {
    node,
    config,
    retries: 0,
  });
  if (!decision.ok) return [];
  return decision.value.facts.map((f) => ({ kind: f.kind, text: f.text, lang: detectLanguage(f.text, 'en') }));
}
