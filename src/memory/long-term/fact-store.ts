import { createHash } from 'node:crypto';

import type { BaseStore, Item } from '@langchain/langgraph';

import { MEMORIES_LABEL, memoryNamespace, userLabel } from '../../auth/memory-namespace';
import type { Language } from '../../core/language';
import { type FactKind, SINGLE_VALUED, type StatedFact } from './fact-rules';

export { MEMORIES_LABEL, memoryNamespace, userLabel };

/** How many facts a turn gives the agent at most. */
export const RECALL_LIMIT = 5;

/** A remembered fact as stored: one store item per fact, under the user's namespace. */
export interface MemoryValue {
  text: string;
  kind: FactKind;
  lang: Language;
  source_session: string | null;
  created_at: string;
}

/** A remembered fact as read back (its key, and its `score` when the store ranked it by meaning). */
export interface RememberedFact extends MemoryValue {
  key: string;
  updated_at: string;
  score?: number;
}

/** A fact's text, normalised for keying: lower case, no punctuation, single spaces. */
export function normaliseFact(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A fact's key: its kind for a single-valued kind (a new birthday replaces the old), else its normalised text
 * (restating a fact updates it rather than duplicating it). Hashed: a stable, fixed-length key.
 */
export function factKey(fact: Pick<StatedFact, 'kind' | 'text'>): string {
  const basis = SINGLE_VALUED.has(fact.kind) ? `kind:${fact.kind}` : `text:${fact.kind}:${normaliseFact(fact.text)}`;
  return createHash('sha256').update(basis).digest('hex').slice(0, 32);
}

/**
 * Puts each fact under the user's namespace (`put`: a graph's store batches its operations itself). Only the text is
 * embedded when the store has an index: it is what a later question means.
 */
export async function saveFacts(store: BaseStore, userId: string, facts: StatedFact[], sourceSession: string | null): Promise<void> {
  const namespace = memoryNamespace(userId);
  const now = new Date().toISOString();
  const unique = new Map(facts.map((f) => [factKey(f), f]));
  for (const [key, f] of unique) {
    const value: MemoryValue = { text: f.text, kind: f.kind, lang: f.lang, source_session: sourceSession, created_at: now };
    await store.put(namespace, key, { ...value }, ['text']);
  }
}

function toFact(item: Item & { score?: number }): RememberedFact {
  const v = item.value as unknown as MemoryValue;
  return {
    key: item.key,
    text: v.text,
    kind: v.kind,
    lang: v.lang,
    source_session: v.source_session ?? null,
    created_at: v.created_at,
    updated_at: new Date(item.updatedAt).toISOString(),
    ...(typeof item.score === 'number' ? { score: item.score } : {}),
  };
}

/** The user's facts, newest first (at most `limit`, from `offset`). */
export async function listFacts(store: BaseStore, userId: string, limit = 100, offset = 0): Promise<RememberedFact[]> {
  return (await store.search(memoryNamespace(userId), { limit, offset })).map(toFact);
}

/**
 * The facts relevant to `query`, at most `limit`. The user's newest facts are read first (one query, no embedding):
 * none, and recall stops there. When the store ranks by meaning (`ranked`: it has a semantic index), the best facts
 * by meaning; without one, the newest facts (a text search would find only facts that share the question's words,
 * which a question phrased differently does not).
 */
export async function recallFacts(
  store: BaseStore,
  userId: string,
  query: string,
  opts: { ranked: boolean; limit?: number },
): Promise<RememberedFact[]> {
  const limit = opts.limit ?? RECALL_LIMIT;
  const newest = await listFacts(store, userId, limit);
  if (newest.length === 0 || !opts.ranked) return newest;
  return (await store.search(memoryNamespace(userId), { query, limit })).map(toFact);
}

/** Deletes every fact of the user; returns how many there were. */
export async function forgetUser(store: BaseStore, userId: string): Promise<number> {
  const namespace = memoryNamespace(userId);
  let deleted = 0;
  for (;;) {
    const page = await store.search(namespace, { limit: 100 });
    if (page.length === 0) return deleted;
    for (const item of page) await store.delete(namespace, item.key);
    deleted += page.length;
  }
}
