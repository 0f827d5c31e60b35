/**
 * The thread event protocol's wire types (the SDK's `ThreadStream`, `@langchain/langgraph-sdk` 1.15): commands a
 * client sends, the envelopes it gets back (`success` / `error`) and the `event` envelopes of a thread's stream.
 */

/** A command: `POST /threads/{id}/commands` body, or one WebSocket message. */
export interface ProtocolCommand {
  id: number;
  method: string;
  params?: Record<string, unknown>;
}

/** The protocol's error codes (`@langchain/protocol` ErrorCode). */
export type ProtocolErrorCode =
  | 'invalid_argument'
  | 'unknown_command'
  | 'unknown_error'
  | 'no_such_run'
  | 'no_such_subscription'
  | 'no_such_namespace'
  | 'no_such_interrupt'
  | 'no_such_checkpoint'
  | 'permission_denied'
  | 'not_supported';

export interface ResponseMeta {
  thread_id: string;
  applied_through_seq: number;
}

export interface SuccessEnvelope {
  type: 'success';
  id: number;
  result: Record<string, unknown>;
  meta?: ResponseMeta;
}

export interface ErrorEnvelope {
  type: 'error';
  id: number | null;
  error: ProtocolErrorCode;
  message: string;
  meta?: ResponseMeta;
}

export type CommandResponse = SuccessEnvelope | ErrorEnvelope;

/** One event of a thread: `seq` is assigned once per thread, by the process that executes the run. */
export interface EventEnvelope {
  type: 'event';
  event_id: string;
  seq: number;
  method: string;
  params: { namespace: string[]; timestamp: number; node?: string; data: unknown };
}

/** What a stream asks for: `POST /threads/{id}/stream/events` body, or a `subscription.subscribe`'s params. */
export interface EventFilter {
  channels: string[];
  namespaces?: string[][];
  depth?: number;
  /** replay the thread's events after this seq (all that are kept when absent and the thread has a run) */
  since?: number;
}
