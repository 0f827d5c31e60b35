import WebSocket from 'ws';

/** What a protocol socket got: every frame (parsed), and how it closed. */
export interface SocketClient {
  ws: WebSocket;
  frames: any[];
  /** sends one command and resolves with the response of the same id */
  command(id: number, method: string, params?: Record<string, unknown>): Promise<any>;
  /** sends a raw frame */
  raw(data: string | Buffer): void;
  /** the next frame that satisfies `test` (already received or to come) */
  frame(test: (f: any) => boolean, timeoutMs?: number): Promise<any>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

export interface SocketOptions {
  headers?: Record<string, string>;
  protocols?: string[];
  query?: string;
}

/** `ws://…/threads/{id}/stream/events` of a service at `base` (http://…) */
export function socketUrl(base: string, thread: string, query = ''): string {
  return `${base.replace(/^http/, 'ws')}/threads/${encodeURIComponent(thread)}/stream/events${query ? `?${query}` : ''}`;
}

/**
 * Opens the thread event protocol's WebSocket as a Node client (headers allowed) or as a browser would
 * (subprotocols, a query); resolves once it is open — or closed by the server right after, or refused.
 */
export async function openSocket(base: string, thread: string, options: SocketOptions = {}): Promise<SocketClient> {
  const ws = new WebSocket(socketUrl(base, thread, options.query), options.protocols, { headers: options.headers });
  const frames: any[] = [];
  const waiters: Array<{ test: (f: any) => boolean; resolve: (f: any) => void }> = [];
  ws.on('message', (data) => {
    const f = JSON.parse(String(data));
    frames.push(f);
    for (const w of [...waiters]) {
      if (w.test(f)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(f);
      }
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    ws.once('unexpected-response', (_req, res) => resolve({ code: res.statusCode ?? 0, reason: 'http' }));
    ws.once('error', () => resolve({ code: -1, reason: 'error' }));
  });
  await Promise.race([new Promise<void>((resolve) => ws.once('open', () => resolve())), closed]);
  const frame = (test: (f: any) => boolean, timeoutMs = 15_000) =>
    new Promise<any>((resolve, reject) => {
      const seen = frames.find(test);
      if (seen) return resolve(seen);
      const timer = setTimeout(
        () => reject(new Error(`no such frame within ${timeoutMs} ms; got ${JSON.stringify(frames).slice(0, 500)}`)),
        timeoutMs,
      );
      waiters.push({ test, resolve: (f) => (clearTimeout(timer), resolve(f)) });
    });
  return {
    ws,
    frames,
    raw: (data) => ws.send(data),
    command: (id, method, params) => {
      ws.send(JSON.stringify({ id, method, ...(params ? { params } : {}) }));
      return frame((f) => f.id === id && (f.type === 'success' || f.type === 'error'));
    },
    frame,
    closed,
    close: () => ws.close(),
  };
}
