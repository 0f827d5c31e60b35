import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { type Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';

import { AgentRegistry } from '../../agents/agent-registry.service';
import { loadHttpApp } from '../../agents/custom-graphs/http-app-loader';
import { readLanggraphConfig } from '../../agents/custom-graphs/langgraph-config';
import { AppConfig } from '../../config/app-config';
import { contextSlot } from '../../observability/context-slot';
import { ResponseInterception, toFetchRequest, writeFetchResponse } from './fetch-bridge';

/** how the front app hands a request it does not answer on: to Nest, or (in-process calls) a 404 */
type Bindings = { passOn(c: Context): Promise<Response> };

/** the caller's credentials while the user's app handles its request: `new Client()` calls the API with them */
const callerCredentials = contextSlot<Record<string, string>>('caller-credentials');
const CREDENTIAL_HEADERS = ['authorization', 'x-api-key'];

/**
 * The `http.app` of langgraph.json (a Hono app), mounted in front of the LangGraph API as LangGraph Platform
 * mounts it: its routes answer; its middleware runs for every request, the built-in routes' included, and
 * may change the request (headers, the JSON body) before Nest handles it and Nest's response after (headers,
 * status, or a response of its own). What it does not answer goes on to Nest, so a path neither knows is
 * Nest's 404, not the app's `notFound`.
 *
 * It runs after authentication (app.factory.ts): with API keys configured its routes need a key like any
 * other, and its request changes cannot change the caller's tenant, which is decided before. In the app,
 * `new Client()` without a URL calls this service over HTTP with the caller's credentials, and a run's
 * relative webhook (`"/custom/webhook"`) is sent to the app in process.
 */
@Injectable()
export class CustomHttpApp implements OnModuleInit {
  private readonly logger = new Logger(CustomHttpApp.name);
  private front?: Hono<{ Bindings: Bindings }>;
  private server?: Server;
  /** the API's own body limit (MAX_BODY_BYTES) holds for what the app reads too */
  private readonly bodyLimit: { bytes: number; error: () => Error };

  // the registry loads the graphs first (and applies langgraph.json's env) before the app's module loads
  constructor(
    private readonly config: AppConfig,
    _graphsFirst: AgentRegistry,
  ) {
    const bytes = config.maxBodyBytes;
    this.bodyLimit = {
      bytes,
      error: () => new HTTPException(413, { message: `the request body is over ${bytes} bytes (MAX_BODY_BYTES)` }),
    };
  }

  onModuleInit(): void {
    if (!this.config.langgraphConfig) return;
    const user = loadHttpApp(readLanggraphConfig(this.config.langgraphConfig));
    if (!user) return;
    const front = new Hono<{ Bindings: Bindings }>();
    front.route('/', user as unknown as Hono);
    front.all('*', (c) => c.env.passOn(c));
    this.front = front;
    bindSdkLoopback(() => this.ownUrl());
    this.logger.log({ msg: 'http.app mounted in front of the API', app: readLanggraphConfig(this.config.langgraphConfig).httpApp?.spec });
  }

  get configured(): boolean {
    return this.front !== undefined;
  }

  /** the HTTP server this app listens on: `new Client()` in the user's app calls it */
  attach(server: Server): void {
    this.server = server;
  }

  /** The Express middleware (after authentication, before the body is parsed). */
  middleware() {
    // named: a route table lists this layer as the catch-all it is (test/support/authz-matrix.ts)
    const httpAppMiddleware = (req: ExpressRequest, res: ExpressResponse, next: NextFunction): void => {
      const front = this.front;
      if (!front) return next();
      let interception: ResponseInterception | undefined;
      const request = toFetchRequest(req, this.bodyLimit);
      const passOn = async (c: Context): Promise<Response> => {
        await applyRequestChanges(req, c, request);
        interception = new ResponseInterception(res);
        next();
        return interception.response;
      };
      callerCredentials
        .run(credentialsOf(req), async () => front.fetch(request, { passOn }))
        .then((response) => (interception ? interception.commit(response) : writeFetchResponse(res, response)))
        .catch((err: unknown) => (res.headersSent ? res.destroy(err as Error) : next(err)));
    };
    return httpAppMiddleware;
  }

  /** A request to the user's app from the service itself (a relative webhook): its routes only, else 404. */
  async fetch(path: string, init: RequestInit): Promise<Response> {
    if (!this.front) return new Response('no http.app is configured', { status: 404 });
    const notFound = async () => new Response('Not Found', { status: 404 });
    return this.front.fetch(new Request(new URL(path, this.ownUrl()), init), { passOn: notFound });
  }

  private ownUrl(): string {
    const address = this.server?.address() as AddressInfo | null | undefined;
    if (!address) return `http://127.0.0.1:${this.config.port}`;
    const host = address.address === '::' || address.address === '0.0.0.0' ? '127.0.0.1' : address.address;
    return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  }
}

/**
 * The user's middleware may have changed the request's headers, read its body, or put a new request in
 * `c.req.raw`: Nest gets the headers as they are now and, when the app read the body or replaced the
 * request, the body the app left (JSON, parsed here as the API's parser would).
 */
async function applyRequestChanges(req: ExpressRequest, c: Context, original: Request): Promise<void> {
  const raw = c.req.raw;
  for (const name of Object.keys(req.headers)) if (!raw.headers.has(name)) delete req.headers[name];
  raw.headers.forEach((value, name) => (req.headers[name] = value));
  if (raw === original && !raw.bodyUsed) return; // Nest reads it from the socket
  const text = raw.bodyUsed ? await c.req.text() : await raw.text();
  if (raw !== original && !original.bodyUsed) req.resume(); // the socket's body is not Nest's to read any more
  try {
    req.body = text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    throw new HTTPException(400, { message: 'the request body is not valid JSON' });
  }
}

function credentialsOf(req: ExpressRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of CREDENTIAL_HEADERS) {
    const v = req.headers[name];
    if (typeof v === 'string') out[name] = v;
  }
  return out;
}

const SDK_FETCH = Symbol.for('langgraph_api:fetch');
const SDK_URL = Symbol.for('langgraph_api:url');

/**
 * `new Client()` of `@langchain/langgraph-sdk` without an `apiUrl` reads these two globals (as LangGraph
 * Platform binds them for custom routes): this service's own address, and a fetch that adds the credentials
 * of the request being handled when the call brings none.
 */
function bindSdkLoopback(ownUrl: () => string): void {
  Object.defineProperty(globalThis, SDK_URL, { configurable: true, get: ownUrl });
  Object.defineProperty(globalThis, SDK_FETCH, { configurable: true, writable: true, value: loopbackFetch });
}

function loopbackFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const headers = new Headers(init?.headers);
  const credentials = callerCredentials.get() ?? {};
  if (!CREDENTIAL_HEADERS.some((h) => headers.has(h))) for (const [k, v] of Object.entries(credentials)) headers.set(k, v);
  return fetch(input, { ...init, headers });
}
