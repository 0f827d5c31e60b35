import type { DocumentsService } from '../../../knowledge/documents/documents.service';
import type { AssistantStateType, AssistantUpdate } from '../state';

/** rag: knowledge-base retrieval, no model; the passages become `context`, their documents `sources`. */
export function createRagNode(documents: DocumentsService, limit = 4) {
  return async function rag(state: AssistantStateType): Promise<AssistantUpdate> {
    const hits = await documents.search(state.user_message, limit);
    const context = hits.map((h) => `[${h.title}${h.heading ? ` › ${h.heading}` : ''}]\n${h.content}`).join('\n\n');
    const seen = new Set<string>();
    const sources = hits
      .filter((h) => !seen.has(h.document_id) && seen.add(h.document_id))
      .map((h) => ({ kind: 'document', ref: h.source ?? h.title, title: h.title, document_id: h.document_id }));
    return { context, sources };
  };
}
