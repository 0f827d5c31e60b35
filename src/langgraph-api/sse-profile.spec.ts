import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';

import { frame, SseWriter } from '../http/sse-writer';
import { LANGGRAPH_SSE } from './sse-profile';

describe('LANGGRAPH_SSE: the bytes LangGraph Server (hono streamSSE) sends', () => {
  it('frames event, data, then id', () => {
    expect(frame(LANGGRAPH_SSE, { event: 'values', data: { messages: [] }, id: '3' })).toBe(
      'event: values\ndata: {"messages":[]}\nid: 3\n\n',
    );
    expect(frame(LANGGRAPH_SSE, { event: 'metadata', data: { run_id: 'r' } })).toBe('event: metadata\ndata: {"run_id":"r"}\n\n');
  });

  it('declares plain text/event-stream, no-cache, and the stream location', () => {
    const headers: Record<string, string> = {};
    const res = Object.assign(new EventEmitter(), {
      statusCode: 0,
      setHeader: (name: string, value: string) => void (headers[name] = value),
      flushHeaders: () => undefined,
      end: () => undefined,
    }) as unknown as ServerResponse;
    new SseWriter(res, { ...LANGGRAPH_SSE, headers: { 'Content-Location': '/runs/r1' } }, { heartbeatMs: 0 }).end();
    expect(headers).toEqual({
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      'Content-Location': '/runs/r1',
    });
  });
});
