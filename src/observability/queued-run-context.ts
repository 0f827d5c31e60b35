import { currentRequestId, withLogFields } from './log-context';
import { traceCarrier, withTraceParent } from './tracing';

/** What a queued run carries from the request that queued it (in the BullMQ job's data, or in memory). */
export interface QueuedRunContext {
  request_id?: string;
  /** W3C trace context (`traceparent`), only with tracing on */
  trace?: Record<string, string>;
}

/** The current request's context, to store with a job (undefined outside a request with tracing off). */
export function queuedRunContext(): QueuedRunContext | undefined {
  const requestId = currentRequestId();
  const trace = traceCarrier();
  if (!requestId && !trace) return undefined;
  return { ...(requestId ? { request_id: requestId } : {}), ...(trace ? { trace } : {}) };
}

/** Runs a queued run's execution in the context it was queued from: its spans continue the trace, its lines carry the request id. */
export function inQueuedRunContext<T>(ctx: QueuedRunContext | undefined, fn: () => T): T {
  if (!ctx) return fn();
  return withTraceParent(ctx.trace, () => (ctx.request_id ? withLogFields({ request_id: ctx.request_id }, fn) : fn()));
}
