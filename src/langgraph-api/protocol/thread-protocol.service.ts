import { Injectable } from '@nestjs/common';

import type { CommandResponse, EventEnvelope, EventFilter, ProtocolCommand } from './protocol-types';

/**
 * The thread event protocol without its transport: commands in, envelopes out, and a thread's events as an
 * async iterable. The SSE controller and the WebSocket gateway are adapters over these two methods. The
 * principal is the request's (ambient, as for every service); `tenantId` is the caller's tenant.
 */
@Injectable()
export class ThreadProtocolService {
  /** Runs one command on a thread; never throws (a refusal or a bad command is an `error` envelope). */
  command(tenantId: string, threadId: string, cmd: ProtocolCommand): Promise<CommandResponse> {
    void tenantId;
    void threadId;
    return Promise.resolve({ type: 'error', id: cmd.id, error: 'not_supported', message: 'not yet' });
  }

  /**
   * The thread's events matching `filter`, replayed after `filter.since` then live, until `signal` aborts.
   * Authorized (threads:read) before the first event; throws the dialect's not-found error when the caller may
   * not read the thread. Ending the iteration never cancels a run.
   */
  // eslint-disable-next-line require-yield
  async *events(tenantId: string, threadId: string, filter: EventFilter, signal: AbortSignal): AsyncIterable<EventEnvelope> {
    void tenantId;
    void threadId;
    void filter;
    void signal;
    throw new Error('not implemented');
  }
}
