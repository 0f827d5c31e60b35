import { A2A_VERSION_HEADER, type AgentCard } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { JsonRpcTransportHandler, ServerCallContext, validateVersion } from '@a2a-js/sdk/server';
import { agentCardHandler } from '@a2a-js/sdk/server/express';
import { Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';

import { ApiKeyAuth } from '../../auth/api-key-auth.service';
import { Tenant } from '../../auth/tenant.guard';
import { TokenAuth } from '../../auth/token-auth.service';
import { SseWriter } from '../../http/sse-writer';
import type { AssistantWire } from '../assistants/assistants.repository';
import { AssistantsService } from '../assistants/assistants.service';
import { LanggraphCustomAuth } from '../auth/custom-auth';
import { AssistantNotFoundException } from '../errors';
import { a2aErrorOf, AgentNotFoundException, AssistantIdRequiredException } from './a2a-errors';
import { A2aTasks } from './a2a-tasks';
import { agentCardJson, agentCardOf, publicUrl } from './agent-card';
import { AssistantAgent } from './assistant-agent';

/** the SDK's legacy (0.3) dialect is the one a request without `A2A-Version` speaks */
const LEGACY_VERSION = '0.3';
const INVALID_REQUEST = -32600;
const A2A_SSE = { idField: 'first', charset: false, cacheControl: 'no-cache', headers: { 'X-Accel-Buffering': 'no' } } as const;

type RpcResponse = { jsonrpc: string; id: string | number | null; result?: unknown; error?: unknown };

/** A JSON-RPC 2.0 request object, as far as routing it needs (the SDK checks its params). */
function isRpcRequest(body: unknown): body is { id?: string | number | null; method: string } {
  const b = body as { jsonrpc?: unknown; method?: unknown } | null;
  return !!b && typeof b === 'object' && !Array.isArray(b) && b.jsonrpc === '2.0' && typeof b.method === 'string';
}

function isStream(x: unknown): x is AsyncGenerator<RpcResponse> {
  return !!x && typeof (x as AsyncGenerator)[Symbol.asyncIterator] === 'function';
}

/**
 * Every assistant as an A2A agent (as LangGraph's Agent Server offers them): its card at
 * `/.well-known/agent-card.json?assistant_id=` and `/a2a/{id}/.well-known/agent-card.json`, and JSON-RPC at
 * `POST /a2a/{id}` — A2A 1.0 or 0.3 by the `A2A-Version` header, parsed and answered by the SDK's transports over
 * AssistantAgent, streams as Server-Sent Events through the service's one SSE writer. Read with the same
 * credentials as the assistant (tenant-scoped); errors are JSON-RPC errors (the `a2a` dialect for what fails
 * before this controller).
 */
@Controller()
export class A2aController {
  constructor(
    private readonly assistants: AssistantsService,
    private readonly tasks: A2aTasks,
    private readonly keys: ApiKeyAuth,
    private readonly tokens: TokenAuth,
    private readonly custom: LanggraphCustomAuth,
  ) {}

  @Get('.well-known/agent-card.json')
  async wellKnownCard(
    @Tenant() tenantId: string,
    @Query('assistant_id') id: unknown,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    if (typeof id !== 'string' || !id) throw new AssistantIdRequiredException();
    await sendCard(await this.card(await this.assistant(tenantId, id), id, req, mountOf(req, '/.well-known/')), req, res);
  }

  @Get('a2a/:assistantId/.well-known/agent-card.json')
  async assistantCard(
    @Tenant() tenantId: string,
    @Param('assistantId') id: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await sendCard(await this.card(await this.assistant(tenantId, id), id, req, mountOf(req, '/a2a/')), req, res);
  }

  @Post('a2a/:assistantId')
  async rpc(@Tenant() tenantId: string, @Param('assistantId') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const body: unknown = req.body;
    if (!isRpcRequest(body)) {
      const rid = (body as { id?: unknown } | null)?.id;
      const error = { code: INVALID_REQUEST, message: 'the body is not a JSON-RPC 2.0 request (jsonrpc "2.0" and a method)' };
      res.status(200).json({ jsonrpc: '2.0', id: typeof rid === 'string' || typeof rid === 'number' ? rid : null, error });
      return;
    }
    const assistant = await this.assistant(tenantId, id);
    const card = await this.card(assistant, id, req, mountOf(req, '/a2a/'));
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const agent = new AssistantAgent(this.tasks, tenantId, assistant, card, gone.signal);
    const version = req.header(A2A_VERSION_HEADER) || undefined;
    const legacy = (version ?? LEGACY_VERSION) === LEGACY_VERSION;
    const mapError = legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : JsonRpcTransportHandler.mapToJSONRPCError;
    const context = new ServerCallContext({ requestedVersion: version });
    let answer: RpcResponse | AsyncGenerator<RpcResponse>;
    try {
      validateVersion(context.requestedVersion, card, 'JSONRPC');
      const transport = legacy ? new LegacyJsonRpcTransportHandler(agent) : new JsonRpcTransportHandler(agent);
      answer = await transport.handle(body as Record<string, unknown>, context);
    } catch (e) {
      answer = { jsonrpc: '2.0', id: body.id ?? null, error: mapError(a2aErrorOf(e)) };
    }
    if (!isStream(answer)) {
      res.status(200).json(answer);
      return;
    }
    await this.stream(answer, body.id ?? null, mapError, res);
  }

  /**
   * A stream's events as SSE, after its first one (a refusal before it — an unknown task, a refused thread — is a
   * plain JSON-RPC error, as the SDK's server answers it).
   */
  private async stream(
    events: AsyncGenerator<RpcResponse>,
    id: string | number | null,
    mapError: (e: unknown) => unknown,
    res: Response,
  ): Promise<void> {
    let first: IteratorResult<RpcResponse>;
    try {
      first = await events.next();
    } catch (e) {
      res.status(200).json({ jsonrpc: '2.0', id, error: mapError(a2aErrorOf(e)) });
      return;
    }
    const sse = new SseWriter(res, A2A_SSE);
    try {
      if (!first.done) sse.send('message', first.value);
      for await (const e of { [Symbol.asyncIterator]: () => events }) {
        if (sse.isClosed) break;
        sse.send('message', e);
        if (!sse.isClosed) await sse.drained();
      }
    } catch (e) {
      sse.send('error', { jsonrpc: '2.0', id, error: mapError(a2aErrorOf(e)) });
    } finally {
      sse.end();
      void events.return(undefined);
    }
  }

  /** The card, with the endpoint named by the id the client used (a graph id or an assistant id). */
  private async card(assistant: AssistantWire, id: string, req: Request, mount: string): Promise<AgentCard> {
    const auth = { apiKeys: await this.keys.required(), tokens: this.tokens.enabled(), custom: this.custom.configured };
    return agentCardOf(assistant, publicUrl(req, mount, `/a2a/${encodeURIComponent(id)}`), auth);
  }

  /** The assistant as the caller may read it (`assistants:read`), by id or graph id; else 404. */
  private async assistant(tenantId: string, id: string): Promise<AssistantWire> {
    try {
      return await this.assistants.get(tenantId, id);
    } catch (e) {
      throw e instanceof AssistantNotFoundException ? new AgentNotFoundException(id) : e;
    }
  }
}

/**
 * The card in the version the client asked for (`A2A-Version`, absent meaning 0.3 as on JSON-RPC): A2A 1.0's JSON
 * as is; for 0.3 the SDK's own card handler answers — a 0.3 card (`url`, `preferredTransport`, 0.3's security
 * schemes) that also carries 1.0's `supportedInterfaces`, with `Vary: A2A-Version` and an ETag. Revalidated on
 * every use (`no-cache`): a card is tenant data.
 */
async function sendCard(card: AgentCard, req: Request, res: Response): Promise<void> {
  if (!/^0\./.test(req.header(A2A_VERSION_HEADER) || LEGACY_VERSION)) {
    res.setHeader('Cache-Control', 'no-cache');
    res.append('Vary', A2A_VERSION_HEADER);
    res.status(200).json(agentCardJson(card));
    return;
  }
  const legacy = agentCardHandler({
    agentCardProvider: () => Promise.resolve(card),
    legacyCompat: { enabled: true },
    cache: { maxAge: 0 },
  });
  const url = req.url;
  req.url = '/'; // the SDK's handler is a router answering at its own root
  await new Promise<void>((resolve, reject) => {
    res.once('finish', resolve);
    legacy(req, res, (err?: unknown) => (err ? reject(err) : reject(new Error('the A2A card handler did not answer'))));
  }).finally(() => (req.url = url));
}

/** What came before the route (`/a2a/…`, `/.well-known/…`) in the request's path: an embedding application's prefix, else nothing. */
function mountOf(req: Request, route: string): string {
  const path = req.originalUrl.split('?')[0];
  return path.slice(0, Math.max(path.lastIndexOf(route), 0));
}
