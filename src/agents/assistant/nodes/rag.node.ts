import type { RunnableConfig } from '@langchain/core/runnables';

import type { DocumentsService } from '../../../knowledge/documents/documents.service';
import { markTainted } from '../../../tools/tool-guard';
import { asUntrustedData } from '../../../tools/untrusted';
import type { AssistantStateType, AssistantUpdate } from '../state';

/** rag: knowledge-base retrieval, no model; the passages become `context`, their documents `sources`. */
export function createRagNode(documents: DocumentsService, limit = 4) {
  return async function rag(state: AssistantStateType, config?: RunnableConfig): Promise<AssistantUpdate> {
    const hits = await documents.search(state.user_message, limit);
    const passages = hits.map((h) => `[${h.title}${h.heading ? ` › ${h.heading}` : ''}]\n${h.content}`).join('\n\n');
    if (passages) await markTainted(config, 'knowledge base', passages);
    const context = passages ? asUntrustedData(passages, { source: 'knowledge base' }) : '';
    const seen = new Set<string>();
    const sources = hits
      .filter((h) => !seen.has(h.document_id) && seen.add(h.document_id))
      .map((h) => ({ kind: 'document', ref: h.source ?? h.title, title: h.title, document_id: h.document_id }));
    return { context, sources };
  };
}
