import type { Response } from 'express';

/**
 * A Server-Sent Events writer on an Express response. Events sent in one event-loop turn go out as one write:
 * a streamed answer's token events arrive in bursts (one run-event-bus read returns many), and a write per event
 * costs a chunked-encoding frame and a socket `writev` each — most of what a token event cost to send.
 */
export class SseStream {
  private closed = false;
  /** events not yet written, flushed at the end of this event-loop turn (setImmediate) or by `end` */
  private pending = '';
  private flushing?: NodeJS.Immediate;

  constructor(private readonly res: Response) {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.on('close', () => {
      this.closed = true;
      clearImmediate(this.flushing);
      this.pending = '';
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** `id`: the run event bus id the event comes from (what a reconnecting client sends as `Last-Event-ID`). */
  send(event: string, data: unknown, id?: string): void {
    if (this.closed) return;
    this.pending += `${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    this.flushing ??= setImmediate(() => this.flush());
  }

  end(): void {
    if (!this.closed) {
      this.flush();
      this.res.end();
    }
    this.closed = true;
  }

  private flush(): void {
    clearImmediate(this.flushing);
    this.flushing = undefined;
    if (this.closed || !this.pending) return;
    const text = this.pending;
    this.pending = '';
    this.res.write(text);
  }
}
