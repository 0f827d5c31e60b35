/**
 * The floor under `npm run bench:compare` (COMPARE_ONLY=…,floor,floor-pg): the compare graph (`graph.ts`) behind the
 * least HTTP server the SDK client can drive — `node:http`, threads in memory, no run records, no events, no queue,
 * no auth, no logging, no validation — with LangGraph's `MemorySaver` (`floor`: what the libraries alone cost, no
 * durability at all) or the official `PostgresSaver` (`floor-pg`, DB_URL set). Durability `async`, LangGraph
 * Server's default, as both servers run the graph. Env: PORT, COMPARE_MODEL_BASE_URL (read by graph.ts), DB_URL.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

import type { BaseMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';

import { graph } from './graph';

const ASSISTANT = { assistant_id: 'react_calc', graph_id: 'react_calc', config: {}, metadata: {}, name: 'react_calc' };

async function body(req: IncomingMessage): Promise<any> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : {};
}

/** Messages as LangGraph Server sends them (`{ type, content, … }`), not LangChain's `lc` constructor form. */
function wire(values: { messages?: BaseMessage[] }): unknown {
  const messages = values.messages?.map((m) => ({
    type: m.getType(),
    content: m.content,
    id: m.id,
    name: m.name,
    additional_kwargs: m.additional_kwargs,
    response_metadata: m.response_metadata,
    ...('tool_calls' in m ? { tool_calls: m.tool_calls } : {}),
    ...('tool_call_id' in m ? { tool_call_id: m.tool_call_id } : {}),
  }));
  return { ...values, messages };
}

function json(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function main(): Promise<void> {
  const pg = process.env.DB_URL ? PostgresSaver.fromConnString(process.env.DB_URL) : undefined;
  if (pg) await pg.setup();
  graph.checkpointer = pg ?? new MemorySaver();
  const threads = new Set<string>();

  const server = createServer((req, res) => {
    void (async () => {
      const url = req.url ?? '';
      const input = await body(req);
      if (url === '/assistants/search') return json(res, 200, [ASSISTANT]);
      if (url === '/threads') {
        const thread_id = randomUUID();
        threads.add(thread_id);
        return json(res, 200, { thread_id, metadata: {}, status: 'idle', values: null });
      }
      const m = /^\/threads\/([^/]+)\/runs\/(wait|stream)$/.exec(url);
      if (!m || !threads.has(m[1])) return json(res, 404, { detail: 'not found' });
      const config = { configurable: { thread_id: m[1] }, durability: 'async' as const };
      if (m[2] === 'wait') return json(res, 200, wire(await graph.invoke(input.input, config)));
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(`event: metadata\ndata: ${JSON.stringify({ run_id: randomUUID(), attempt: 1 })}\n\n`);
      for await (const values of await graph.stream(input.input, { ...config, streamMode: 'values' })) {
        res.write(`event: values\ndata: ${JSON.stringify(wire(values))}\n\n`);
      }
      res.end();
    })().catch((err: Error) => json(res, 500, { detail: err.message }));
  });
  server.keepAliveTimeout = 65_000;
  server.listen(Number(process.env.PORT), '127.0.0.1');
}

void main();
