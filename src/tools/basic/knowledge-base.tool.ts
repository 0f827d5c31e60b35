import { tool } from '@langchain/core/tools';
import { z } from 'zod';

import { tenantOf } from '../../auth/tenant';
import type { DocumentsService } from '../../knowledge/documents/documents.service';

/** search_knowledge_base: the uploaded documents (POST /v1/documents), hybrid search, with titles and sources. */
export function createKnowledgeBaseTool(documents: DocumentsService) {
  return tool(
    async ({ query, limit }: { query: string; limit?: number }, config?: { configurable?: Record<string, unknown> }) => {
      // only the run's tenant's documents (its run context)
      const hits = await documents.search(query, limit ?? 4, tenantOf(config));
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
