import { FACT_KINDS } from './fact-rules';

/** The one model decision of long-term memory: which of the user's self-descriptions are durable facts. */
export const FACT_DECISION_PROMPT = `You decide what a personal assistant should remember about its user across sessions.
Given the user's statements, keep only durable personal facts (identity, birthday, allergies, diet, where they live,
job, family, lasting preferences). Never keep questions, hypotheticals, or passing states (mood, today's plans).
Write each fact as the user stated it, in the user's language.
Answer with JSON only: {"facts": [{"kind": one of ${FACT_KINDS.map((k) => `"${k}"`).join(' | ')}, "text": "the fact"}]}
(an empty list when nothing is worth remembering).`;
