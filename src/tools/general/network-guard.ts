import { type LookupAddress, type LookupOptions, promises as dns } from 'node:dns';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';

import { blockedAddressReason } from './ip-policy';
import { ToolError } from './tool-error';

/**
 * `safeFetch`: the only way the general tools reach the network (SSRF guard).
 *
 * - only http/https, no credentials in the URL;
 * - the host is resolved (all addresses) and refused if ANY address is private/internal (see ip-policy.ts);
 * - the connection is made to exactly the addresses that were checked: the request gets a `lookup`
 *   function that returns the pinned list instead of resolving again. That closes the DNS-rebinding gap
 *   of "resolve, check, then fetch" (where fetch resolves a second time and may get 127.0.0.1). Global
 *   `fetch` cannot do this without the `undici` package (its Agent `connect.lookup`), which is not
 *   installed here, so this uses node:http/https, which accept a `lookup` option directly;
 * - redirects are followed by hand (at most `maxRedirects`), every hop re-checked; credentials headers
 *   are dropped when a redirect changes origin;
 * - one overall deadline (AbortSignal) across all hops, and a cap on the response body size.
 */

export interface SafeFetchOptions {
  /** Overall deadline for the request, including redirects and reading the body. */
  timeoutMs: number;
  /** Largest response body accepted, in bytes. */
  maxBytes: number;
  /** Skip the address check entirely. For tests against 127.0.0.1 only; never in production. */
  allowPrivateNetwork?: boolean;
  /** Host names (exact, lower-case) allowed even if they resolve to private addresses, e.g. a self-hosted service. */
  allowedPrivateHosts?: readonly string[];
  /** Resolves a host name to all its addresses; default `dns.promises.lookup(host, { all: true })`. */
  lookup?: (host: string) => Promise<string[]>;
  /** Default 5. */
  maxRedirects?: number;
}

export interface SafeFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Caller cancellation (e.g. the run's signal); an abort is rethrown as-is, not turned into a ToolError. */
  signal?: AbortSignal;
}

export interface SafeResponse {
  status: number;
  ok: boolean;
  /** The final URL after redirects. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text(): string;
  json(): unknown;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization', 'x-api-key'];

async function defaultLookup(host: string): Promise<string[]> {
  const records = await dns.lookup(host, { all: true, verbatim: true });
  return records.map((r) => r.address);
}

/** Resolves the URL's host and returns the addresses it may connect to, or throws a ToolError refusal. */
export async function checkUrl(url: URL, opts: SafeFetchOptions): Promise<string[]> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError(`refused: only http and https URLs are allowed (got "${url.protocol}")`);
  }
  if (url.username || url.password) throw new ToolError('refused: URLs with embedded credentials are not allowed');
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await (opts.lookup ?? defaultLookup)(host);
    } catch (err) {
      throw new ToolError(`could not resolve host "${host}"`, { cause: err });
    }
    if (addresses.length === 0) throw new ToolError(`could not resolve host "${host}"`);
  }
  if (opts.allowPrivateNetwork || opts.allowedPrivateHosts?.includes(host)) return addresses;
  for (const address of addresses) {
    const reason = blockedAddressReason(address);
    if (reason) {
      const what = isIP(host) ? `address ${address}` : `host "${host}" (resolves to a ${reason} address)`;
      throw new ToolError(`refused: ${what} is not allowed: ${reason}; requests to private or internal networks are blocked`);
    }
  }
  return addresses;
}

/** A `lookup` for node:net that hands back the already-checked addresses instead of resolving again. */
function pinnedLookup(addresses: string[]) {
  return (_host: string, options: LookupOptions, callback: (...args: never[]) => void): void => {
    const cb = callback as (err: Error | null, address: string | LookupAddress[], family?: number) => void;
    const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
    const list = addresses.map((address) => ({ address, family: isIP(address) })).filter((a) => !wanted || a.family === wanted);
    if (list.length === 0) return cb(Object.assign(new Error('no address of the requested family'), { code: 'ENOTFOUND' }), '');
    if (options.all) return cb(null, list);
    return cb(null, list[0].address, list[0].family);
  };
}

function send(url: URL, init: SafeFetchInit, addresses: string[], signal: AbortSignal): Promise<IncomingMessage> {
  const headers: Record<string, string> = { ...init.headers, 'accept-encoding': 'identity' };
  if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    // agent: false = a fresh connection per request, so a socket checked under one policy is never reused.
    const req = mod.request(url, { method: init.method ?? 'GET', headers, lookup: pinnedLookup(addresses), agent: false, signal }, resolve);
    req.on('error', reject);
    req.end(init.body);
  });
}

function readBody(res: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const tooLarge = (n: string) => new ToolError(`response too large: ${n} bytes (limit ${maxBytes})`);
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    return Promise.reject(tooLarge(String(declared)));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const onAbort = () => res.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    let settled = false;
    const done = (err: Error | null) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(Buffer.concat(chunks));
    };
    res.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) {
        done(tooLarge(`more than ${maxBytes}`));
        res.destroy();
      } else chunks.push(chunk);
    });
    res.on('end', () => done(null));
    res.on('error', (err) => done(err));
    res.on('aborted', () => done(new Error('connection closed before the response was complete')));
  });
}

function nextInit(status: number, init: SafeFetchInit, from: URL, to: URL): SafeFetchInit {
  const headers = { ...init.headers };
  if (from.origin !== to.origin) {
    for (const name of Object.keys(headers)) if (CREDENTIAL_HEADERS.includes(name.toLowerCase())) delete headers[name];
  }
  const method = (init.method ?? 'GET').toUpperCase();
  if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
    for (const name of Object.keys(headers)) if (name.toLowerCase().startsWith('content-')) delete headers[name];
    return { ...init, method: method === 'HEAD' ? 'HEAD' : 'GET', headers, body: undefined };
  }
  return { ...init, headers };
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function wrap(res: IncomingMessage, url: URL, body: Buffer): SafeResponse {
  const status = res.statusCode ?? 0;
  return {
    status,
    ok: status >= 200 && status < 300,
    url: url.toString(),
    headers: res.headers,
    body,
    text: () => body.toString('utf8'),
    json: () => JSON.parse(body.toString('utf8')) as unknown,
  };
}

/** A response whose head arrived under the SSRF policy; its body is still to be read (within `signal`). */
export interface OpenedResponse {
  res: IncomingMessage;
  /** The final URL after redirects. */
  url: URL;
  /** The caller's signal and the overall deadline: reading the body stops when it aborts. */
  signal: AbortSignal;
  /** Turns an error met while reading the body into the ToolError `safeFetch` would throw. */
  fail(err: unknown): unknown;
}

/**
 * Opens `url` under the SSRF policy above (every hop checked, the connection pinned to the checked addresses)
 * and returns once the final response's head arrived; the caller reads the body (a stream) within `signal`.
 */
export async function openSafe(url: string | URL, init: SafeFetchInit, opts: SafeFetchOptions): Promise<OpenedResponse> {
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    throw new ToolError('refused: not a valid URL');
  }
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
  const maxRedirects = opts.maxRedirects ?? 5;
  const fail = (err: unknown, host: string): unknown => {
    if (err instanceof ToolError || init.signal?.aborted) return err;
    if (deadline.aborted) return new ToolError(`request to ${host} timed out after ${opts.timeoutMs} ms`, { cause: err });
    const code = (err as NodeJS.ErrnoException).code;
    return new ToolError(`request to ${host} failed: ${code ?? (err as Error).message}`, { cause: err });
  };
  let hopInit = init;
  for (let hop = 0; ; hop++) {
    try {
      const addresses = await untilAborted(checkUrl(current, opts), signal); // DNS counts against the deadline too
      const res = await send(current, hopInit, addresses, signal);
      const location = res.headers.location;
      if (REDIRECTS.has(res.statusCode ?? 0) && location) {
        res.destroy();
        if (hop >= maxRedirects) throw new ToolError(`too many redirects (more than ${maxRedirects})`);
        const next = new URL(location, current);
        hopInit = nextInit(res.statusCode ?? 0, hopInit, current, next);
        current = next;
        continue;
      }
      const host = current.host;
      return { res, url: current, signal, fail: (err) => fail(err, host) };
    } catch (err) {
      throw fail(err, current.host);
    }
  }
}

/** Fetches `url` under the SSRF policy above. Refusals, timeouts and oversize bodies throw a ToolError. */
export async function safeFetch(url: string | URL, init: SafeFetchInit, opts: SafeFetchOptions): Promise<SafeResponse> {
  const opened = await openSafe(url, init, opts);
  try {
    return wrap(opened.res, opened.url, await readBody(opened.res, opts.maxBytes, opened.signal));
  } catch (err) {
    throw opened.fail(err);
  }
}
