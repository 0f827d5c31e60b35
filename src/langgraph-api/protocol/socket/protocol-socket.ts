import { randomUUID } from 'node:crypto';

import { SUPPORTED_CHANNELS } from '@langchain/langgraph/stream';
import { Logger } from '@nestjs/common';
import type { RawData, WebSocket } from 'ws';

import { DomainException } from '../../../core/errors';
import { matchesFilter } from '../event-filter';
import type { CommandResponse, EventEnvelope, EventFilter, ProtocolCommand } from '../protocol-types';
import type { ThreadProtocolService } from '../thread-protocol.service';
import { frameText, parseCommand, parseSubscribe, parseUnsubscribe } from './socket-frames';

/** What one socket may hold: frames waiting for their turn, subscriptions, events kept for a late subscribe, unread bytes. */
export interface SocketLimits {
  maxQueuedFrames: number;
  maxSubscriptions: number;
  keptEvents: number;
  maxBufferedBytes: number;
}

export const SOCKET_LIMITS: SocketLimits = {
  maxQueuedFrames: 64,
  maxSubscriptions: 32,
  keptEvents: 10_000,
  maxBufferedBytes: 16 * 1024 * 1024,
};

/** Who the socket is and where: the caller's tenant, the thread, and how to run code as the request that opened it. */
export interface SocketScope {
  tenantId: string;
  threadId: string;
  /** runs `fn` in the opening request's context (its principal, a custom-auth user): the services read it */
  asCaller<T>(fn: () => T): T;
  /** replay after this seq (`?since=`), when the client knows where it stopped */
  since?: number;
  /** the caller may write (a token with only `read` sends the reading commands alone, as its HTTP requests) */
  mayWrite: boolean;
}

/** the commands that change nothing: what a read-only caller may send (over HTTP, `POST …/commands` needs `write`) */
const READING = new Set(['state.get', 'state.listCheckpoints', 'agent.getTree', 'subscription.subscribe', 'subscription.unsubscribe']);

/**
 * One WebSocket of the thread event protocol (`GET /threads/{id}/stream/events`): frames in, envelopes out,
 * over the transport-independent ThreadProtocolService. Frames are handled one at a time, in order; a
 * `subscription.subscribe` / `unsubscribe` is the socket's own (the reference's semantics: the success first,
 * then the events of the thread so far that match it, then live ones); every other command is the service's.
 *
 * One pump reads the thread's events (all channels, from `since`) and sends each one that matches a
 * subscription, once, in `seq` order; the events it has read are kept (bounded) for a later subscription's
 * replay. Closing the socket stops the pump and nothing else: a run it started goes on.
 */
export class ProtocolSocket {
  private readonly logger = new Logger(ProtocolSocket.name);
  private readonly subscriptions = new Map<string, EventFilter>();
  private readonly kept: EventEnvelope[] = [];
  private readonly stop = new AbortController();
  /** frames and pump sends, one after the other: the wire's order is this chain's */
  private turn: Promise<void> = Promise.resolve();
  private queued = 0;

  constructor(
    private readonly ws: WebSocket,
    private readonly protocol: ThreadProtocolService,
    private readonly scope: SocketScope,
    private readonly limits: SocketLimits = SOCKET_LIMITS,
  ) {}

  /** Starts reading frames and the thread's events. */
  open(): void {
    this.ws.on('message', (data: RawData, isBinary: boolean) => this.scope.asCaller(() => this.enqueue(data, isBinary)));
    this.ws.on('close', () => this.stop.abort());
    this.ws.on('error', () => this.stop.abort());
    void this.scope.asCaller(() => this.pump());
  }

  private enqueue(data: RawData, isBinary: boolean): void {
    if (this.queued >= this.limits.maxQueuedFrames) {
      this.close(1008, 'too many commands waiting; wait for the answers');
      return;
    }
    this.queued += 1;
    const text = frameText(data, isBinary);
    this.serial(async () => {
      this.queued -= 1;
      await this.handle(text);
    });
  }

  private async handle(text: string | undefined): Promise<void> {
    const parsed = parseCommand(text);
    if ('refused' in parsed) return this.send(parsed.refused);
    const cmd = parsed.ok;
    if (!this.scope.mayWrite && !READING.has(cmd.method)) {
      return this.send({ type: 'error', id: cmd.id, error: 'permission_denied', message: `${cmd.method} needs the write permission` });
    }
    if (cmd.method === 'subscription.subscribe') return this.subscribe(cmd);
    if (cmd.method === 'subscription.unsubscribe') return this.unsubscribe(cmd);
    this.send(await this.command(cmd));
  }

  private async command(cmd: ProtocolCommand): Promise<CommandResponse> {
    try {
      return await this.protocol.command(this.scope.tenantId, this.scope.threadId, cmd);
    } catch (err) {
      // what HTTP answers with a status (a thread hidden from the caller, a handler's refusal) is an envelope here
      if (err instanceof DomainException && err.status < 500) {
        const code = err.status === 401 || err.status === 403 || err.status === 404 ? 'permission_denied' : 'invalid_argument';
        return { type: 'error', id: cmd.id, error: code, message: err.message };
      }
      this.logger.error({ msg: 'a protocol command failed', method: cmd.method, error: (err as Error).message });
      return { type: 'error', id: cmd.id, error: 'unknown_error', message: 'The command failed.' };
    }
  }

  private subscribe(cmd: ProtocolCommand): void {
    const parsed = parseSubscribe(cmd);
    if ('refused' in parsed) return this.send(parsed.refused);
    if (this.subscriptions.size >= this.limits.maxSubscriptions) {
      return this.send({
        type: 'error',
        id: cmd.id,
        error: 'invalid_argument',
        message: `at most ${this.limits.maxSubscriptions} subscriptions per socket`,
      });
    }
    const id = randomUUID();
    const replay = this.kept.filter((event) => matchesFilter(parsed.ok, event));
    this.send({ type: 'success', id: cmd.id, result: { subscription_id: id, replayed_events: replay.length } });
    for (const event of replay) this.send(event);
    this.subscriptions.set(id, parsed.ok);
  }

  private unsubscribe(cmd: ProtocolCommand): void {
    const parsed = parseUnsubscribe(cmd);
    if ('refused' in parsed) return this.send(parsed.refused);
    if (!this.subscriptions.delete(parsed.ok)) {
      return this.send({ type: 'error', id: cmd.id, error: 'no_such_subscription', message: `Unknown subscription: ${parsed.ok}` });
    }
    this.send({ type: 'success', id: cmd.id, result: {} });
  }

  /** The thread's events, each sent (in its turn) when a subscription wants it, and kept for later ones. */
  private async pump(): Promise<void> {
    const filter: EventFilter = { channels: [...SUPPORTED_CHANNELS], since: this.scope.since };
    try {
      for await (const event of this.protocol.events(this.scope.tenantId, this.scope.threadId, filter, this.stop.signal)) {
        if (this.stop.signal.aborted) break;
        this.serial(async () => this.deliver(event));
      }
    } catch (err) {
      if (this.stop.signal.aborted) return;
      if (err instanceof DomainException && err.status >= 400 && err.status < 500) return this.close(4000 + err.status, err.code);
      this.logger.error({ msg: 'the protocol socket lost its event stream', error: (err as Error).message });
      this.close(1011, 'the event stream failed; reconnect');
    }
  }

  private deliver(event: EventEnvelope): void {
    this.kept.push(event);
    if (this.kept.length > this.limits.keptEvents) this.kept.shift();
    for (const filter of this.subscriptions.values()) {
      if (matchesFilter(filter, event)) return this.send(event);
    }
  }

  private serial(step: () => Promise<void>): void {
    this.turn = this.turn.then(step).catch((err: unknown) => {
      this.logger.error({ msg: 'the protocol socket failed a step', error: (err as Error).message });
      this.close(1011, 'internal error; reconnect');
    });
  }

  private send(message: object): void {
    if (this.ws.readyState !== 1) return;
    this.ws.send(JSON.stringify(message));
    // a client that does not read: the socket closes rather than the server buffering without end (it may reconnect with `since`)
    if (this.ws.bufferedAmount > this.limits.maxBufferedBytes) this.close(1013, 'the client reads too slowly; reconnect');
  }

  private close(code: number, reason: string): void {
    this.stop.abort();
    if (this.ws.readyState === 1 || this.ws.readyState === 0) this.ws.close(code, reason.slice(0, 120));
  }
}
