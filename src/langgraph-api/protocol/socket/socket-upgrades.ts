import { type IncomingMessage, type Server, ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { type WebSocket, WebSocketServer } from 'ws';

import { TICKET_SUBPROTOCOL } from '../../../auth/stream-ticket';
import { AppConfig } from '../../../config/app-config';

/** the protocol's socket route, below any mount prefix (the embeddable module's) */
const SOCKET_PATH = /\/threads\/[^/?]+\/stream\/events(?:\?|$)/;
/** a close reason is at most 123 bytes */
const MAX_REASON = 120;

interface Pending {
  socket: Duplex;
  head: Buffer;
  accepted: boolean;
}

/** the express application as a request handler (Nest's Express adapter instance) */
type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The thread event protocol's WebSocket upgrades, through the same pipeline as every HTTP request: an upgrade
 * of `…/threads/{id}/stream/events` is handed to the Express application as a GET (request edge, CORS, the one
 * authentication with stream tickets, the `http` app, Nest's router, guards and error filter) with a response
 * that has no socket. The route's controller accepts it (`accept`); anything else the pipeline answers is the
 * refusal: a 4xx becomes an accepted socket closed with 4000 + the status and the error's code as its reason
 * (what the SDK's WebSocket transport reads: a browser never sees an upgrade's HTTP status), any other answer is
 * written as HTTP and the connection closed. Other upgrades are left to the server's other listeners (404
 * when there are none).
 */
@Injectable()
export class SocketUpgrades implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SocketUpgrades.name);
  private readonly pending = new WeakMap<IncomingMessage, Pending>();
  private readonly server: WebSocketServer;
  private http?: Server;
  private readonly listener = (req: IncomingMessage, socket: Duplex, head: Buffer) => this.route(req, socket, head);

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    config: AppConfig,
  ) {
    // a command is a small JSON object: frames are bounded like request bodies, without compression (no zip bombs)
    this.server = new WebSocketServer({
      noServer: true,
      maxPayload: config.maxBodyBytes,
      perMessageDeflate: false,
      handleProtocols: chooseProtocol,
    });
  }

  onApplicationBootstrap(): void {
    const adapter = this.adapterHost.httpAdapter;
    const handler = adapter?.getInstance() as unknown;
    if (!adapter || typeof handler !== 'function') return;
    this.http = adapter.getHttpServer() as Server;
    this.handler = handler as Handler;
    this.http.on('upgrade', this.listener);
  }

  onApplicationShutdown(): void {
    this.http?.off('upgrade', this.listener);
    for (const ws of this.server.clients) ws.close(1001, 'the server is shutting down');
  }

  private handler?: Handler;

  /** Completes the upgrade of a request the pipeline admitted; false when it is no upgrade (a plain GET). */
  accept(req: IncomingMessage, onOpen: (ws: WebSocket) => void): boolean {
    const pending = this.pending.get(req);
    if (!pending || pending.accepted) return false;
    pending.accepted = true;
    this.server.handleUpgrade(req, pending.socket, pending.head, (ws) => onOpen(ws));
    return true;
  }

  private route(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (!SOCKET_PATH.test(req.url ?? '')) {
      if ((this.http?.listenerCount('upgrade') ?? 0) <= 1) writeHttp(socket, 404, {}, '');
      return;
    }
    socket.on('error', () => socket.destroy());
    const pending: Pending = { socket, head, accepted: false };
    this.pending.set(req, pending);
    const res = new ServerResponse(req);
    captureAnswer(res, (status, headers, body) => {
      if (pending.accepted) return; // the socket is the WebSocket's now (a `http` app's commit of the hand-off)
      pending.accepted = true;
      this.refuse(req, pending, status, headers, body);
    });
    try {
      this.handler!(req, res);
    } catch (err) {
      this.logger.error({ msg: 'the protocol socket upgrade failed', error: (err as Error).message });
      if (!pending.accepted) writeHttp(socket, 500, {}, '');
    }
  }

  /** A refusal of the socket route: 4xx as a close code (the SDK's convention), the rest as HTTP. */
  private refuse(req: IncomingMessage, pending: Pending, status: number, headers: Record<string, unknown>, body: string): void {
    if (status < 400 || status >= 500) return writeHttp(pending.socket, status, headers, body);
    this.server.handleUpgrade(req, pending.socket, pending.head, (ws) => ws.close(4000 + status, reasonOf(status, body)));
  }
}

/** the subprotocol the socket answers with: the first one offered that is not a ticket, else the ticket's own */
function chooseProtocol(offered: Set<string>): string | false {
  const all = [...offered];
  return all.find((p) => !p.startsWith(TICKET_SUBPROTOCOL)) ?? all[0] ?? false;
}

/** The answer the pipeline gives a request without a socket, handed to `done` once (status, headers, body). */
function captureAnswer(res: ServerResponse, done: (status: number, headers: Record<string, unknown>, body: string) => void): void {
  const chunks: Buffer[] = [];
  const keep = (chunk: unknown, encoding?: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    chunks.push(
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : Buffer.from(chunk as Uint8Array),
    );
  };
  const target = res as unknown as Record<string, unknown>;
  target.write = (chunk: unknown, encoding?: unknown) => {
    keep(chunk, encoding);
    return true;
  };
  target.end = (chunk?: unknown, encoding?: unknown) => {
    keep(chunk, encoding);
    done(res.statusCode, res.getHeaders(), Buffer.concat(chunks).toString('utf8'));
    return res;
  };
}

/** the refusal's code (`{ error: { code } }`, LangGraph's `{ detail }`), else the status's name */
function reasonOf(status: number, body: string): string {
  let reason = STATUS_CODES[status] ?? 'refused';
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown }; detail?: unknown };
    if (typeof parsed.error?.code === 'string') reason = parsed.error.code;
    else if (typeof parsed.detail === 'string') reason = parsed.detail;
  } catch {
    if (body.trim()) reason = body.trim();
  }
  return Buffer.from(reason)
    .subarray(0, MAX_REASON)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}

/** An HTTP answer written on the raw connection, which is then closed. */
function writeHttp(socket: Duplex, status: number, headers: Record<string, unknown>, body: string): void {
  if (socket.destroyed) return;
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || /^(content-length|connection|transfer-encoding)$/i.test(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${String(one)}`);
  }
  lines.push(`content-length: ${Buffer.byteLength(body)}`, 'connection: close');
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}
