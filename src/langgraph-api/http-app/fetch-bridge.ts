import { once } from 'node:events';
import { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';

import { requestUrl } from '../../auth/request-edge';

/**
 * Express ⇄ fetch: an Express request as a fetch `Request` for a fetch handler (the user's Hono app), and a
 * fetch `Response` written back. The request body is read from the socket only if the handler reads it, so a
 * request handed on to Nest untouched is parsed there as usual. Its URL is the one the request edge made
 * canonical (auth/request-edge.ts `requestUrl`): the app's router reads the path authentication read.
 */
export function toFetchRequest(req: ExpressRequest, limit: { bytes: number; error: () => Error }): Request {
  const url = requestUrl(req);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
  }
  const bodyless = req.method === 'GET' || req.method === 'HEAD';
  return new Request(url, {
    method: req.method,
    headers,
    body: bodyless ? undefined : lazyBody(req, limit),
    duplex: 'half',
  } as RequestInit);
}

/** the socket's body, read on demand, refused past `limit.bytes` (as the API's own parser refuses it) */
function lazyBody(source: Readable, limit: { bytes: number; error: () => Error }): ReadableStream<Uint8Array> {
  let chunks: AsyncIterator<Buffer> | undefined;
  let read = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        chunks ??= source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
        const { done, value } = await chunks.next();
        if (done) return controller.close();
        read += value.length;
        if (read > limit.bytes) return controller.error(limit.error());
        controller.enqueue(new Uint8Array(value));
      },
      cancel: () => void source.resume(),
    },
    { highWaterMark: 0 },
  );
}

/** Writes a fetch Response to an Express response, streaming its body chunk by chunk (with backpressure). */
export async function writeFetchResponse(res: ServerResponse, response: Response, viaPrototype = false): Promise<void> {
  // viaPrototype: the instance's own write methods are held by an interception (the response was replaced)
  type Method = (this: ServerResponse, ...args: unknown[]) => unknown;
  const from = (viaPrototype ? ServerResponse.prototype : res) as unknown as Record<'writeHead' | 'write' | 'end' | 'flushHeaders', Method>;
  const call = { writeHead: from.writeHead, write: from.write, end: from.end, flushHeaders: from.flushHeaders };
  call.writeHead.call(res, response.status, headerPairs(response.headers));
  if (!response.body) return void call.end.call(res);
  // a stream (no length known): the head goes now, each chunk as it comes
  if (!response.headers.has('content-length')) call.flushHeaders.call(res);
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    if (res.destroyed) break;
    if (!call.write.call(res, chunk)) await once(res, 'drain');
  }
  call.end.call(res);
}

/** the headers as Node writes them: set-cookie stays one value per cookie */
function headerPairs(headers: Headers): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  headers.forEach((value, name) => {
    if (name !== 'set-cookie') out[name] = value;
  });
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) out['set-cookie'] = cookies;
  return out;
}

const NULL_BODY = new Set([101, 204, 205, 304]);
type Chunk = { data: unknown; encoding?: BufferEncoding };
const METHODS = ['writeHead', 'write', 'end', 'flushHeaders'] as const;

/**
 * Nest's answer to a request the user's app passed on, held as a fetch Response (`response`: its status and
 * headers as of the moment Nest sends them, its body the chunks Nest writes) so the app's middleware can
 * read it and change it after `await next()`, as on LangGraph Platform. `commit` writes what the middleware
 * chain returned: the same body (headers changed or not) goes out natively, what Nest had written first and
 * then its further writes directly; a replaced response is written instead of Nest's.
 */
export class ResponseInterception {
  readonly response: Promise<Response>;
  private resolveHead!: (r: Response) => void;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private readonly body = new ReadableStream<Uint8Array>({ start: (c) => void (this.controller = c) });
  private readonly held: Chunk[] = [];
  private headSent = false;
  private ended = false;
  private readonly saved = new Map<string, PropertyDescriptor | undefined>();
  /** the headers set before Nest's (security headers, request id): a replacing response keeps them */
  private readonly before: ReturnType<ExpressResponse['getHeaders']>;

  constructor(private readonly res: ExpressResponse) {
    this.response = new Promise((resolve) => (this.resolveHead = resolve));
    this.before = { ...res.getHeaders() };
    for (const m of [...METHODS, 'headersSent']) this.saved.set(m, Object.getOwnPropertyDescriptor(res, m));
    const target = res as unknown as Record<string, unknown>;
    target.writeHead = this.writeHead.bind(this);
    target.write = this.write.bind(this);
    target.end = this.end.bind(this);
    target.flushHeaders = () => void this.head();
    Object.defineProperty(res, 'headersSent', { configurable: true, get: () => this.headSent });
  }

  private head(status = this.res.statusCode, headers?: unknown): void {
    if (this.headSent) return;
    this.headSent = true;
    if (headers && typeof headers === 'object' && !Array.isArray(headers)) {
      for (const [k, v] of Object.entries(headers)) if (v !== undefined) this.res.setHeader(k, v as string | string[]);
    }
    this.res.statusCode = status;
    const out = new Headers();
    for (const [k, v] of Object.entries(this.res.getHeaders())) {
      for (const one of Array.isArray(v) ? v : v === undefined ? [] : [String(v)]) out.append(k, one);
    }
    this.resolveHead(new Response(NULL_BODY.has(status) ? null : this.body, { status, headers: out }));
  }

  private writeHead(status: number, reason?: unknown, headers?: unknown): ExpressResponse {
    this.head(status, typeof reason === 'string' ? headers : reason);
    return this.res;
  }

  private write(data: unknown, encoding?: unknown, cb?: unknown): boolean {
    this.head();
    const enc = typeof encoding === 'string' ? (encoding as BufferEncoding) : undefined;
    if (data !== undefined && data !== null && data !== '') {
      this.held.push({ data, encoding: enc });
      try {
        this.controller.enqueue(typeof data === 'string' ? Buffer.from(data, enc) : new Uint8Array(data as Uint8Array));
      } catch {
        /* the body was cancelled: nobody reads it */
      }
    }
    const done = typeof encoding === 'function' ? encoding : cb;
    if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
    return true;
  }

  private end(data?: unknown, encoding?: unknown, cb?: unknown): ExpressResponse {
    if (typeof data === 'function') return this.end(undefined, undefined, data);
    this.write(data, encoding, cb);
    if (!this.ended) {
      this.ended = true;
      try {
        this.controller.close();
      } catch {
        /* cancelled */
      }
    }
    return this.res;
  }

  /** Writes the middleware chain's final response in place of Nest's own. */
  async commit(final: Response): Promise<void> {
    if (final.body !== this.body && !(final.body === null && NULL_BODY.has(final.status))) {
      for (const name of this.res.getHeaderNames()) if (!(name in this.before)) this.res.removeHeader(name);
      return writeFetchResponse(this.res, final, true);
    }
    this.restore();
    for (const name of Object.keys(this.res.getHeaders())) if (!final.headers.has(name)) this.res.removeHeader(name);
    this.res.writeHead(final.status, headerPairs(final.headers));
    // a response still being written (a stream whose head Nest flushed before any event): its head goes now
    if (!this.ended) this.res.flushHeaders();
    for (const c of this.held) this.res.write(c.data, c.encoding ?? 'utf8');
    this.held.length = 0;
    if (this.ended) this.res.end();
  }

  private restore(): void {
    const target = this.res as unknown as Record<string, unknown>;
    for (const [name, descriptor] of this.saved) {
      delete target[name];
      if (descriptor) Object.defineProperty(this.res, name, descriptor);
    }
  }
}
