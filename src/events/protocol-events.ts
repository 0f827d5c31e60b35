import { createLifecycleTransformer } from '@langchain/langgraph';
import { convertToProtocolEvent } from '@langchain/langgraph/stream';

import type { ThreadLogEntry } from './thread-event-log';

/**
 * One run's graph stream chunks as thread event protocol events (the reference server's run session, in
 * behaviour): `@langchain/langgraph/stream`'s `convertToProtocolEvent` does the per-chunk work; here the root
 * lifecycle (started → completed / interrupted / failed), `input.requested` from interrupts (each once), state
 * payloads as plain protocol messages, and named custom channels. Each node task's and subgraph's lifecycle
 * (`reply:<task id>` started → completed / failed) comes from core's lifecycle transformer, fed every chunk as the
 * reference server's stream feeds it; the root's stays ours.
 */
export class RunProtocolEvents {
  private readonly pending = new Set<string>();
  private terminal = false;
  private readonly lifecycle = createLifecycleTransformer({ emitRootOnRegister: false });
  private emitted: ThreadLogEntry[] = [];

  constructor(private readonly graphName: string) {
    this.lifecycle.onRegister?.({
      push: (_ns: string[], e: { method: string; params: { namespace: string[]; data: unknown } }) => {
        this.emitted.push(entry(e.method, e.params.namespace, e.params.data));
      },
    } as never);
  }

  /** The root lifecycle's first event. */
  started(): ThreadLogEntry[] {
    return [entry('lifecycle', [], { event: 'running', graph_name: this.graphName })];
  }

  /** A chunk the run published as `mode` or `mode|ns1|ns2`; nothing for the events the protocol has no channel for. */
  chunk(eventName: string, payload: unknown): ThreadLogEntry[] {
    if (this.terminal) return [];
    const [mode = '', ...namespace] = eventName.split('|');
    for (const e of convertToProtocolEvent({ namespace, mode: mode as 'values', payload, seq: 0 })) this.lifecycle.process(e);
    return [...this.takeLifecycle(), ...this.converted(mode, namespace, payload)];
  }

  private converted(mode: string, namespace: string[], payload: unknown): ThreadLogEntry[] {
    switch (mode) {
      case 'values': {
        const out = this.inputRequests(namespace, payload);
        const values = isRecord(payload) ? withoutInterrupts(payload) : payload;
        if (isRecord(values) && Object.keys(values).length === 0) return out;
        return [...out, entry('values', namespace, statePayload(values))];
      }
      case 'updates': {
        if (isRecord(payload) && '__interrupt__' in payload) return this.inputRequests(namespace, payload);
        const [node, values] = isRecord(payload) && Object.keys(payload).length === 1 ? Object.entries(payload)[0]! : [undefined, payload];
        return [entry('updates', namespace, statePayload(values), node)];
      }
      case 'custom':
        return [entry('custom', namespace, isRecord(payload) && typeof payload.name === 'string' ? payload : { payload })];
      case 'messages':
      case 'tools':
      case 'tasks':
      case 'checkpoints':
        // as the reference's run session: a `messages` event names no node (the converter's `node` is dropped)
        return convertToProtocolEvent({ namespace, mode, payload, seq: 0 }).map((e) =>
          entry(e.method, e.params.namespace, e.params.data, mode === 'messages' ? undefined : (e.params as { node?: string }).node),
        );
      default:
        if (mode.startsWith('custom:')) return [entry('custom', namespace, { name: mode.slice(7), payload })];
        return [];
    }
  }

  /** The run ended: `failed` with its error, `interrupted` while an interrupt waits, `completed` otherwise. */
  ended(error?: string | null, interrupted = false): ThreadLogEntry[] {
    if (this.terminal) return [];
    this.terminal = true;
    if (error) this.lifecycle.fail?.(new Error(error));
    else void this.lifecycle.finalize?.();
    const children = this.takeLifecycle();
    const event = error ? 'failed' : interrupted || this.pending.size > 0 ? 'interrupted' : 'completed';
    return [...children, entry('lifecycle', [], { event, graph_name: this.graphName, ...(error ? { error } : {}) })];
  }

  /** The node task and subgraph lifecycle events core's transformer emitted since the last call (never the root's). */
  private takeLifecycle(): ThreadLogEntry[] {
    const out = this.emitted.filter((e) => e.params.namespace.length > 0);
    this.emitted = [];
    return out;
  }

  private inputRequests(namespace: string[], payload: unknown): ThreadLogEntry[] {
    const interrupts = isRecord(payload) && Array.isArray(payload.__interrupt__) ? payload.__interrupt__ : [];
    const out: ThreadLogEntry[] = [];
    for (const i of interrupts) {
      if (!isRecord(i) || typeof i.id !== 'string' || this.pending.has(i.id)) continue;
      this.pending.add(i.id);
      out.push(entry('input.requested', namespace, { interrupt_id: i.id, payload: i.value }));
    }
    return out;
  }
}

function entry(method: string, namespace: string[], data: unknown, node?: string): ThreadLogEntry {
  return { method, params: { namespace, timestamp: Date.now(), ...(node ? { node } : {}), data } };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function withoutInterrupts(v: Record<string, unknown>): Record<string, unknown> {
  const { __interrupt__: _, ...rest } = v;
  return rest;
}

const MESSAGE_TYPES = new Set(['human', 'ai', 'tool', 'system', 'remove']);

/** State as the protocol carries it: messages reduced to their protocol fields. */
export function statePayload(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(statePayload);
  if (!isRecord(v)) return v;
  if (typeof v.type === 'string' && MESSAGE_TYPES.has(v.type) && 'content' in v) return protocolMessage(v);
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, statePayload(x)]));
}

function protocolMessage(m: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { type: m.type, content: m.content };
  if (typeof m.id === 'string') out.id = m.id;
  if (typeof m.name === 'string') out.name = m.name;
  if (isRecord(m.response_metadata) && Object.keys(m.response_metadata).length > 0) out.response_metadata = m.response_metadata;
  if (m.type === 'tool') {
    if (typeof m.tool_call_id === 'string') out.tool_call_id = m.tool_call_id;
    if (m.status === 'success' || m.status === 'error') out.status = m.status;
  }
  if (m.type === 'ai' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
    out.tool_calls = m.tool_calls.map((c) => {
      const call = c as Record<string, unknown>;
      return { ...(call.id ? { id: call.id } : {}), name: call.name, args: call.args ?? {}, type: 'tool_call' };
    });
  }
  return out;
}
