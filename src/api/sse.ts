import type { ServerResponse } from 'node:http';

import { type SseProfile, SseWriter } from '../http/sse-writer';

/** REST v1's Server-Sent Events: `id:` first, UTF-8 declared, no proxy buffering (nginx's `X-Accel-Buffering`). */
export const REST_V1_SSE: SseProfile = {
  idField: 'first',
  charset: true,
  cacheControl: 'no-cache, no-transform',
  headers: { 'X-Accel-Buffering': 'no' },
};

/** The one SSE writer (http/sse-writer.ts) in REST v1's framing. */
export class SseStream extends SseWriter {
  constructor(res: ServerResponse) {
    super(res, REST_V1_SSE);
  }
}
