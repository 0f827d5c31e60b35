import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A scripted OpenAI-compatible model server for tests and benchmarks (no internet, deterministic).
 *
 *   const model = new ScriptedModelServer();
 *   const baseURL = await model.start();            // http://127.0.0.1:PORT/v1 — give it to ChatOpenAI
 *   model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] }, { content: '42' });
 *   model.setResponder((req) => ({ content: 'dynamic' }));   // consulted when the queue is empty
 *
 * Replies: `{ content }`, `{ toolCalls, content? }`, `{ json, wrap? }` (content = JSON text; `wrap: 'prose'`
 * or `'fence'` surrounds it with prose or a ```json fence, as models do when no JSON mode constrains them —
 * dropped when the request carried an accepted `response_format`), and faults
 * `{ fault: 'http_429', retryAfterSeconds? }`, `{ fault: 'http_500' }`, `{ fault: 'hang' }` (until stop()),
 * `{ fault: 'malformed' }` (200 with a non-JSON body). Streaming (`stream: true`) sends SSE chunks (three
 * pieces, or one token per chunk with `configure({ tokenPerChunk: true })`), with a usage chunk when
 * `stream_options.include_usage` is set. Unscripted requests get a 500 and are recorded in `unexpected`.
 *
 * Endpoint capabilities (`configure`, back to the defaults on `reset()`): `tools: 'refuse_vllm' | 'refuse_ollama'`
 * answers any request carrying `tools` with the 400 those servers send (exact texts and body shapes);
 * `responseFormat: { json_schema: 'reject', json_object: 'reject' }` answers such a `response_format` with a
 * 400 "… not supported". Refused requests are recorded but consume no scripted reply. `responseFormats` lists
 * the response_format type of every chat request ('json_schema' | 'json_object' | 'none').
 */
export type ScriptedReply =
  | { content: string }
  | { toolCalls: Array<{ name: string; args: Record<string, unknown>; id?: string }>; content?: string }
  | { json: unknown; wrap?: 'prose' | 'fence' }
  | { fault: 'http_429'; retryAfterSeconds?: number }
  | { fault: 'http_500' | 'hang' | 'malformed' };

export interface ChatRequest {
  model: string;
  messages: Array<{ role: string; content: any; tool_calls?: any[]; tool_call_id?: string; name?: string }>;
  tools?: any[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [key: string]: any;
}

/** may answer later (a Promise): the request waits for it, as a slow model's would */
type Responder = (req: ChatRequest) => ScriptedReply | undefined | Promise<ScriptedReply | undefined>;

export interface EndpointBehaviour {
  /** how a request with `tools` is answered: accepted (default), or refused like vLLM / Ollama */
  tools?: 'accept' | 'refuse_vllm' | 'refuse_ollama';
  /** which response_format types the endpoint accepts (default both) */
  responseFormat?: { json_schema?: 'accept' | 'reject'; json_object?: 'accept' | 'reject' };
  /** stream one token (word or punctuation run) per SSE chunk, as real servers do */
  tokenPerChunk?: boolean;
}

/** vLLM started without --enable-auto-tool-choice (its pre-0.10 error body: top-level, not under `error`). */
export const VLLM_TOOLS_REFUSED = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set';
export const ollamaToolsRefused = (model: string) => `registry.ollama.ai/library/${model} does not support tools`;

export class ScriptedModelServer {
  readonly requests: ChatRequest[] = [];
  readonly unexpected: ChatRequest[] = [];
  callCount = 0;
  embeddingCalls = 0;
  latencyMs = 0;
  baseUrl = '';
  /** the response_format type of each chat request, in order */
  readonly responseFormats: Array<'json_schema' | 'json_object' | 'none'> = [];
  private behaviour: EndpointBehaviour = {};
  private readonly queue: ScriptedReply[] = [];
  private responder?: Responder;
  private server?: http.Server;
  private readonly sockets = new Set<Socket>();
  private seq = 0;

  /** `host`: the address to listen on (another host's tests reach it there, test/support/netns-hosts.ts) */
  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    // As hosted endpoints do, idle connections are kept far longer than a client keeps them (Node's default, 5 s, is
    // only 2 s above undici's own close): the client always closes first, and a test never races the server's close
    // of a pooled connection on a busy machine.
    this.server.keepAliveTimeout = 60_000;
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((r) => this.server!.listen(port, host, r));
    this.baseUrl = `http://${host}:${(this.server.address() as AddressInfo).port}/v1`;
    return this.baseUrl;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  enqueue(...replies: ScriptedReply[]): void {
    this.queue.push(...replies);
  }

  setResponder(responder: Responder | undefined): void {
    this.responder = responder;
  }

  /** Endpoint capabilities (merged into the current ones); `reset()` restores the defaults. */
  configure(behaviour: EndpointBehaviour): void {
    this.behaviour = { ...this.behaviour, ...behaviour };
  }

  /** Forget recorded requests, the script, the responder and the endpoint behaviour. */
  reset(): void {
    this.behaviour = {};
    this.responseFormats.length = 0;
    this.requests.length = 0;
    this.unexpected.length = 0;
    this.queue.length = 0;
    this.callCount = 0;
    this.embeddingCalls = 0;
    this.responder = undefined;
  }

  get pending(): number {
    return this.queue.length;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = req.url ?? '';
    const body = await readBody(req);
    if (req.method === 'GET' && url.endsWith('/models')) {
      return json(res, 200, { object: 'list', data: [{ id: 'scripted', object: 'model', owned_by: 'tests' }] });
    }
    if (req.method === 'POST' && url.endsWith('/embeddings')) {
      this.embeddingCalls++;
      const { input, encoding_format } = JSON.parse(body) as { input: string | string[]; encoding_format?: string };
      const inputs = Array.isArray(input) ? input : [input];
      // like OpenAI: base64 of little-endian float32 when asked (the official SDK asks by default)
      const encode = (v: number[]) => (encoding_format === 'base64' ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v);
      return json(res, 200, {
        object: 'list',
        data: inputs.map((t, index) => ({ object: 'embedding', index, embedding: encode(embed(String(t))) })),
        model: 'scripted-embeddings',
        usage: { prompt_tokens: inputs.join('').length, total_tokens: inputs.join('').length },
      });
    }
    if (req.method !== 'POST' || !url.endsWith('/chat/completions')) {
      return json(res, 404, { error: { message: `no route ${req.method} ${url}` } });
    }
    const request = JSON.parse(body) as ChatRequest;
    this.callCount++;
    this.requests.push(request);
    const format = (request.response_format?.type as 'json_schema' | 'json_object' | undefined) ?? 'none';
    this.responseFormats.push(format);
    const refusal = this.refusal(request, format);
    if (refusal) return json(res, 400, refusal);
    const reply = this.queue.shift() ?? (await this.responder?.(request));
    if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
    if (!reply) {
      this.unexpected.push(request);
      return json(res, 500, { error: { message: 'scripted model server: script exhausted', type: 'server_error' } });
    }
    if ('fault' in reply) return this.fault(reply, res);
    const message = this.messageOf(reply, format !== 'none');
    const usage = {
      prompt_tokens: tokens(JSON.stringify(request.messages)),
      completion_tokens: tokens((message.content ?? '') + JSON.stringify(message.tool_calls ?? '')),
    };
    const full = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
    const finish = message.tool_calls ? 'tool_calls' : 'stop';
    if (request.stream) return this.stream(res, request, message, finish, full);
    json(res, 200, {
      id: `chatcmpl-${++this.seq}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
      usage: full,
    });
  }

  /** The 400 body a real endpoint sends for a feature it lacks, or null. */
  private refusal(request: ChatRequest, format: 'json_schema' | 'json_object' | 'none'): unknown {
    if (request.tools?.length && this.behaviour.tools === 'refuse_vllm') {
      return { object: 'error', message: VLLM_TOOLS_REFUSED, type: 'BadRequestError', param: null, code: 400 };
    }
    if (request.tools?.length && this.behaviour.tools === 'refuse_ollama') {
      return { error: { message: ollamaToolsRefused(request.model), type: 'api_error', param: null, code: null } };
    }
    if (format !== 'none' && this.behaviour.responseFormat?.[format] === 'reject') {
      return {
        error: {
          message: `response_format type '${format}' is not supported by this server`,
          type: 'invalid_request_error',
          param: 'response_format',
          code: null,
        },
      };
    }
    return null;
  }

  private messageOf(reply: Exclude<ScriptedReply, { fault: string }>, jsonMode = false) {
    if ('toolCalls' in reply) {
      return {
        role: 'assistant',
        content: reply.content ?? null,
        tool_calls: reply.toolCalls.map((c) => ({
          id: c.id ?? `call_${++this.seq}`,
          type: 'function',
          function: { name: c.name, arguments: JSON.stringify(c.args) },
        })),
      };
    }
    const content = 'json' in reply ? wrapJson(JSON.stringify(reply.json), jsonMode ? undefined : reply.wrap) : reply.content;
    return { role: 'assistant', content } as {
      role: string;
      content: string | null;
      tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
    };
  }

  private fault(reply: { fault: string; retryAfterSeconds?: number }, res: http.ServerResponse): void {
    switch (reply.fault) {
      case 'http_429':
        return json(
          res,
          429,
          { error: { message: 'rate limited (scripted)', type: 'rate_limit_exceeded' } },
          reply.retryAfterSeconds !== undefined ? { 'retry-after': String(reply.retryAfterSeconds) } : {},
        );
      case 'http_500':
        return json(res, 500, { error: { message: 'internal error (scripted)', type: 'server_error' } });
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"id": "chatcmpl-broken", "choices": [ {"message": ');
        return;
      default: // hang: never answer; stop() destroys the socket
        return;
    }
  }

  private stream(
    res: http.ServerResponse,
    request: ChatRequest,
    message: ReturnType<ScriptedModelServer['messageOf']>,
    finish: string,
    usage: Record<string, number>,
  ): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const id = `chatcmpl-${++this.seq}`;
    const created = Math.floor(Date.now() / 1000);
    const send = (delta: unknown, finish_reason: string | null = null, extra: Record<string, unknown> = {}) =>
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: request.model, choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`,
      );
    send({ role: 'assistant', content: '' });
    const pieces = this.behaviour.tokenPerChunk ? tokenize(message.content ?? '') : split(message.content ?? '', 3);
    for (const piece of pieces) send({ content: piece });
    (message.tool_calls ?? []).forEach((c, index) => {
      send({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }] });
      for (const piece of split(c.function.arguments, 2)) send({ tool_calls: [{ index, function: { arguments: piece } }] });
    });
    send({}, finish);
    if (request.stream_options?.include_usage) {
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: request.model, choices: [], usage })}\n\n`);
    }
    res.end('data: [DONE]\n\n');
  }
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function wrapJson(text: string, wrap: 'prose' | 'fence' | undefined): string {
  if (wrap === 'prose') return `Sure! Here is my decision: ${text} Let me know if you need anything else.`;
  if (wrap === 'fence') return `\`\`\`json\n${text}\n\`\`\``;
  return text;
}

/** Words and punctuation runs, each with the whitespace before it: roughly one model token per piece. */
function tokenize(text: string): string[] {
  return text.match(/\s*(?:[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]+)|\s+$/gu) ?? [];
}

const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

function split(text: string, parts: number): string[] {
  if (!text) return [];
  const size = Math.ceil(text.length / parts);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Deterministic 256-dim embedding from character trigrams: similar texts get close vectors. */
export function embed(text: string, dims = 256): number[] {
  const v = new Array<number>(dims).fill(0);
  const t = ` ${text.toLowerCase()} `;
  for (let i = 0; i + 3 <= t.length; i++) {
    let h = 2166136261;
    for (const ch of t.slice(i, i + 3)) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619);
    v[Math.abs(h) % dims] += 1;
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}
