import type { SseProfile } from '../http/sse-writer';

/** LangGraph Server's Server-Sent Events (hono's `streamSSE`): `id:` after `data:`, plain `text/event-stream`. */
export const LANGGRAPH_SSE: SseProfile = { idField: 'last', charset: false, cacheControl: 'no-cache' };
