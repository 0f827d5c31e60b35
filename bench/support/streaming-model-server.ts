import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setImmediate as nextTick } from 'node:timers/promises';

/**
 * An OpenAI-compatible chat endpoint that answers the way hosted models do, for `npm run bench`:
 * a streamed reply (`stream: true`) comes one chunk per ~4 characters (≈ one token), tool-call arguments in
 * pieces, `usage` in the last chunk when asked; every chunk is its own write (its own TCP segment when paced).
 * `ttftMs` delays the first chunk, `tokensPerSecond` paces the rest (0 = as fast as the event loop allows);
 * `callMs` instead spreads the rest evenly so that every call takes that long, whatever its length.
 * Non-streamed requests get the same reply in one JSON body after `ttftMs` + the tokens' time.
 *
 * The react script: a user turn gets one `calculator` tool call; a tool result gets an answer of
 * `answerTokens` tokens. `served` keeps each request's time inside this server (arrival → last byte), which
 * is the "model time" a turn's overhead is measured against.
 */
export interface StreamingBehaviour {
  ttftMs: number;
  tokensPerSecond: number;
  answerTokens: number;
  /** > 0: the whole call takes this long (first chunk at `ttftMs`, the rest evenly after it); overrides tokensPerSecond */
  callMs?: number;
}

export interface ServedRequest {
  streamed: boolean;
  ms: number;
  chunks: number;
}

const CHARS_PER_TOKEN = 4;

export class StreamingModelServer {
  behaviour: StreamingBehaviour = { ttftMs: 0, tokensPerSecond: 0, answerTokens: 20 };
  readonly served: ServedRequest[] = [];
  baseUrl = '';
  private server?: http.Server;
  private readonly sockets = new Set<Socket>();
  private seq = 0;

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 60_000;
    this.server.on('connection', (s) => {
      s.setNoDelay(true);
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this.baseUrl;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const arrived = performance.now();
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      messages: Array<{ role: string; content: unknown }>;
      stream?: boolean;
      stream_options?: { include_usage?: boolean };
    };
    const afterTool = body.messages[body.messages.length - 1]?.role === 'tool';
    const id = `chatcmpl-${++this.seq}`;
    const prompt = JSON.stringify(body.messages).length / CHARS_PER_TOKEN;
    const reply = afterTool ? answer(this.behaviour.answerTokens) : null;
    const pieces = reply ? split(reply) : split(JSON.stringify({ expression: '12*7' }));
    const usage = { prompt_tokens: Math.round(prompt), completion_tokens: pieces.length, total_tokens: Math.round(prompt) + pieces.length };
    if (this.behaviour.ttftMs > 0) await sleep(this.behaviour.ttftMs);
    if (!body.stream) {
      await this.tokenTime(pieces.length);
      const message = reply
        ? { role: 'assistant', content: reply }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: `call_${this.seq}`, type: 'function', function: { name: 'calculator', arguments: pieces.join('') } }],
          };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created: 0,
          model: 'bench',
          choices: [{ index: 0, message, finish_reason: reply ? 'stop' : 'tool_calls' }],
          usage,
        }),
      );
      this.served.push({ streamed: false, ms: performance.now() - arrived, chunks: 1 });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (delta: object, finish: string | null = null, extra: object = {}) =>
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`,
      );
    const gap = this.gapMs(pieces.length);
    let written = 0;
    for (let i = 0; i < pieces.length; i++) {
      if (i > 0) await (gap > 0 ? sleep(gap) : nextTick());
      if (reply) send(i === 0 ? { role: 'assistant', content: pieces[i] } : { content: pieces[i] });
      else if (i === 0)
        send({
          role: 'assistant',
          content: null,
          tool_calls: [{ index: 0, id: `call_${this.seq}`, type: 'function', function: { name: 'calculator', arguments: pieces[i] } }],
        });
      else send({ tool_calls: [{ index: 0, function: { arguments: pieces[i] } }] });
      written++;
    }
    send({}, reply ? 'stop' : 'tool_calls');
    if (body.stream_options?.include_usage)
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: 'bench', choices: [], usage })}\n\n`);
    res.end('data: [DONE]\n\n');
    this.served.push({ streamed: true, ms: performance.now() - arrived, chunks: written + 2 });
  }

  /** the pause between two chunks of a streamed reply of `tokens` chunks */
  private gapMs(tokens: number): number {
    const { callMs = 0, ttftMs, tokensPerSecond } = this.behaviour;
    if (callMs > 0) return Math.max(0, callMs - ttftMs) / Math.max(1, tokens - 1);
    return tokensPerSecond > 0 ? 1000 / tokensPerSecond : 0;
  }

  private async tokenTime(tokens: number): Promise<void> {
    const { callMs = 0, ttftMs, tokensPerSecond } = this.behaviour;
    if (callMs > 0) await sleep(Math.max(0, callMs - ttftMs));
    else if (tokensPerSecond > 0) await sleep((tokens * 1000) / tokensPerSecond);
  }
}

/** An answer of `tokens` ≈4-character tokens that states the tool's result. */
function answer(tokens: number): string {
  const head = 'The result is 84.';
  const filler = ' It is twelve times seven.';
  let text = head;
  while (text.length < tokens * CHARS_PER_TOKEN) text += filler;
  return text.slice(0, Math.max(head.length, tokens * CHARS_PER_TOKEN));
}

function split(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += CHARS_PER_TOKEN) out.push(text.slice(i, i + CHARS_PER_TOKEN));
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
