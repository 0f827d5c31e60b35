import { tool } from '@langchain/core/tools';
import { z } from 'zod';

import { tenantOf } from '../../auth/tenant';
import { detectLanguage, type Language, turnLanguage } from '../../core/language';
import type { DocumentsService } from '../../knowledge/documents/documents.service';

/**
 * Passages in the user's language first, each group in rank order: a knowledge base holding the same policy in
 * Korean and English answers a Korean question from the Korean passage and an English one from the English.
 */
export function inLanguageFirst<H extends { content: string }>(hits: H[], language: Language): H[] {
  const mine = hits.filter((h) => detectLanguage(h.content, language) === language);
  return [...mine, ...hits.filter((h) => !mine.includes(h))];
}

/** search_knowledge_base: the uploaded documents (POST /v1/documents), hybrid search, with titles and sources. */
export function createKnowledgeBaseTool(documents: DocumentsService) {
  return tool(
    async ({ query, limit }: { query: string; limit?: number }, config?: { configurable?: Record<string, unknown> }) => {
      // only the run's tenant's documents (its run context)
      const hits = inLanguageFirst(await documents.search(query, limit ?? 4, tenantOf(config)), turnLanguage(config, query));
      if (hits.length === 0) return ['No matching documents in the knowledge base.', []];
      const text = hits
        .map((h, i) => `[${i + 1}] ${h.title}${h.source ? ` (${h.source})` : ''}${h.heading ? ` › ${h.heading}` : ''}\n${h.content}`)
        .join('\n\n');
      // the artifact: the documents cited, for the answer's `sources` (the model sees only the text)
      const sources = hits.map((h) => ({ kind: 'document', ref: h.source ?? h.title, title: h.title, document_id: h.document_id }));
      return [text, sources];
    },
    {
      name: 'search_knowledge_base',
      responseFormat: 'content_and_artifact',
      description:
        "Searches the organisation's knowledge-base documents (policies, manuals, notes) and returns matching passages with their titles.",
      schema: z.object({
        query: z.string().describe('what to look for, in the words of the documents'),
        limit: z.number().int().min(1).max(10).optional().describe('how many passages (default 4)'),
      }),
    },
  );
}
