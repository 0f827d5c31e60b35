import type { NextFunction, Request, Response } from 'express';

import { contextSlot } from './context-slot';

/**
 * Where a request's time goes, for `npm run bench -- --breakdown` (PHASE_TIMINGS=true): named spans on the
 * real code path, sent back in the response's `Server-Timing` header. Off (the default) a span is one
 * AsyncLocalStorage read and nothing is allocated.
 */
class PhaseRecorder {
  readonly started = performance.now();
  readonly spans: Array<[name: string, ms: number]> = [];

  add(name: string, ms: number): void {
    this.spans.push([name, ms]);
  }

  header(): string {
    const total = performance.now() - this.started;
    const parts = this.spans.map(([n, ms]) => `${n};dur=${ms.toFixed(3)}`);
    return [...parts, `server;dur=${total.toFixed(3)}`].join(', ');
  }
}

const current = contextSlot<PhaseRecorder>('phases');

/** Whether the request in progress records phases (callers skip building span names otherwise). */
export function recordingPhases(): boolean {
  return current.get() !== undefined;
}

/**
 * Times `fn` as `name` when the request records phases. Not recording, it is `fn()` itself: no promise wrapped
 * around `fn`'s (each one more for every promise hook and async context on the process), a synchronous throw
 * still a rejection.
 */
export function phase<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const rec = current.get();
  if (rec) return timed(rec, name, fn);
  try {
    return fn();
  } catch (err) {
    return Promise.reject(err as Error);
  }
}

async function timed<T>(rec: PhaseRecorder, name: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await fn();
  } finally {
    rec.add(name, performance.now() - t0);
  }
}

/** A span measured by the caller (start from `performance.now()`). */
export function phaseSince(name: string, start: number): void {
  current.get()?.add(name, performance.now() - start);
}

/** Express middleware (mounted only with PHASE_TIMINGS=true): records the request's phases into `Server-Timing`. */
export function phaseTimings(_req: Request, res: Response, next: NextFunction): void {
  const rec = new PhaseRecorder();
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => Response;
  res.writeHead = ((...args: unknown[]) => {
    if (!res.headersSent) res.setHeader('server-timing', rec.header());
    return writeHead(...args);
  }) as Response['writeHead'];
  current.run(rec, next);
}
