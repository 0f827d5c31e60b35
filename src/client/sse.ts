/** One Server-Sent Event; `data` is parsed JSON (the service sends JSON only). */
export interface SseEvent<E extends string = string, D = unknown> {
  event: E;
  data: D;
  id?: string;
}

/** The events of a `text/event-stream` body, as they arrive (https://html.spec.whatwg.org/#event-stream-interpretation). */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let event = 'message';
  let data: string[] = [];
  let id: string | undefined;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      const lines = buffer.split(/\r\n|\r|\n/);
      buffer = lines.pop()!; // an incomplete line waits for the next chunk
      for (const line of lines) {
        if (line === '') {
          if (data.length > 0) yield { event, data: JSON.parse(data.join('\n')), ...(id !== undefined ? { id } : {}) };
          event = 'message';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue; // a comment (keep-alive)
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
        else if (field === 'id') id = value;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
