import type { Response } from 'express';

/** A Server-Sent Events writer on an Express response. */
export class SseStream {
  private closed = false;

  constructor(private readonly res: Response) {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.on('close', () => (this.closed = true));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** `id`: the run event bus id the event comes from (what a reconnecting client sends as `Last-Event-ID`). */
  send(event: string, data: unknown, id?: string): void {
    if (this.closed) return;
    this.res.write(`${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  end(): void {
    if (!this.closed) this.res.end();
    this.closed = true;
  }
}
