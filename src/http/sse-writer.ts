import type { ServerResponse } from 'node:http';

/** One Server-Sent Event: `id` is the run event bus id a reconnecting client sends back as `Last-Event-ID`. */
export interface SseEvent {
  event: string;
  data: unknown;
  id?: string;
  /** `data` already encoded (the run event bus's JSON of it): written as is */
  json?: string;
}

/** How a dialect frames its events on the wire (the bytes each dialect sent before there was one writer). */
export interface SseProfile {
  /** `id:` before `event:` (REST v1) or after `data:` (LangGraph Server, as hono's `streamSSE` writes it) */
  idField: 'first' | 'last';
  /** `; charset=utf-8` after `text/event-stream` */
  charset: boolean;
  cacheControl: string;
  /** further response headers (`X-Accel-Buffering`, `Content-Location`, …) */
  headers?: Record<string, string>;
}

export interface SseOptions {
  /** a comment line after this long without a write, so proxies keep an idle stream open; 0: none */
  heartbeatMs?: number;
}

/** the interval of the heartbeat comment: below the 30–60 s idle timeouts of common proxies and load balancers */
export const SSE_HEARTBEAT_MS = 15_000;
export const SSE_HEARTBEAT = ': heartbeat\n\n';

/**
 * The one Server-Sent Events writer of every dialect (REST v1, the LangGraph API, the thread event protocol).
 * Events sent in one event-loop turn go out as one write (a run event bus read returns many token events at
 * once, and a write per event costs a chunked-encoding frame and a socket `writev` each); an idle stream gets a
 * heartbeat comment; a socket that does not keep up (`write` returns false) holds further writes until it
 * drains, and `pipe` waits for that before it asks for more events; the client going away aborts `signal` and
 * makes every later call a no-op.
 */
export class SseWriter {
  private closed = false;
  private blocked = false;
  /** events not yet written, flushed at the end of this event-loop turn (setImmediate), on drain or by `end` */
  private pending = '';
  private flushing?: NodeJS.Immediate;
  private heartbeat?: NodeJS.Timeout;
  private waiters: Array<() => void> = [];
  private readonly gone = new AbortController();
  private readonly heartbeatMs: number;

  constructor(
    private readonly res: ServerResponse,
    private readonly profile: SseProfile,
    options: SseOptions = {},
  ) {
    this.heartbeatMs = options.heartbeatMs ?? SSE_HEARTBEAT_MS;
    res.statusCode = 200;
    res.setHeader('Content-Type', `text/event-stream${profile.charset ? '; charset=utf-8' : ''}`);
    res.setHeader('Cache-Control', profile.cacheControl);
    res.setHeader('Connection', 'keep-alive');
    for (const [name, value] of Object.entries(profile.headers ?? {})) res.setHeader(name, value);
    res.flushHeaders();
    res.on('close', () => this.close());
    res.on('drain', () => this.drain());
    this.armHeartbeat();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** aborted when the client goes away (or the stream ended): what the producer of the events listens to */
  get signal(): AbortSignal {
    return this.gone.signal;
  }

  /** `json`: `data` already encoded as JSON (a run event's own encoding), so it is not encoded again */
  send(event: string, data: unknown, id?: string, json?: string): void {
    if (this.closed) return;
    this.pending += frame(this.profile, { event, data, id, json });
    this.flushing ??= setImmediate(() => this.flush());
  }

  /** Resolves once the socket took what was written (at once unless a write was refused), or the client left. */
  drained(): Promise<void> {
    if (!this.blocked || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Writes every event, waiting for the socket to drain when it falls behind; ends the stream when they do. */
  async pipe(events: AsyncIterable<SseEvent>): Promise<void> {
    try {
      for await (const e of events) {
        if (this.closed) break;
        this.send(e.event, e.data, e.id);
        if (this.blocked) await this.drained();
      }
    } finally {
      this.end();
    }
  }

  end(): void {
    if (!this.closed) {
      this.blocked = false;
      this.flush();
      this.res.end();
    }
    this.close();
  }

  private flush(): void {
    clearImmediate(this.flushing);
    this.flushing = undefined;
    if (this.closed || this.blocked || !this.pending) return;
    const text = this.pending;
    this.pending = '';
    this.write(text);
  }

  private write(text: string): void {
    this.blocked = !this.res.write(text);
    this.armHeartbeat();
  }

  private drain(): void {
    this.blocked = false;
    this.flush();
    if (!this.blocked) this.release();
  }

  private armHeartbeat(): void {
    clearTimeout(this.heartbeat);
    if (this.heartbeatMs <= 0 || this.closed) return;
    this.heartbeat = setTimeout(() => {
      if (this.blocked) return this.armHeartbeat(); // the socket is full: nothing idles yet, look again later
      this.write(SSE_HEARTBEAT);
    }, this.heartbeatMs);
    this.heartbeat.unref();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    clearImmediate(this.flushing);
    clearTimeout(this.heartbeat);
    this.pending = '';
    this.gone.abort();
    this.release();
  }

  private release(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}

/** One event's bytes in the profile's field order. */
export function frame(profile: Pick<SseProfile, 'idField'>, e: SseEvent): string {
  const id = e.id ? `id: ${e.id}\n` : '';
  const body = `event: ${e.event}\ndata: ${e.json ?? JSON.stringify(e.data ?? null)}\n`;
  return profile.idField === 'first' ? `${id}${body}\n` : `${body}${id}\n`;
}

/** the longest `Last-Event-ID` taken (our ids are run event bus ids: `12` or `1700000000000-0`) */
const MAX_EVENT_ID = 128;

/**
 * The `Last-Event-ID` a reconnecting client sent (header value, given once or repeated), or undefined when
 * absent, blank, longer than 128 characters or holding anything but printable ASCII — an id we never sent.
 */
export function lastEventIdOf(value: string | string[] | undefined): string | undefined {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!raw || raw.length > MAX_EVENT_ID || !/^[\x21-\x7e]+$/.test(raw)) return undefined;
  return raw;
}
