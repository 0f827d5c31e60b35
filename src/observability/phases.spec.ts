import type { Request, Response } from 'express';

import { phase, phaseTimings, recordingPhases } from './phases';

/** just what phaseTimings touches of a response */
function fakeResponse() {
  const headers = new Map<string, string>();
  const res = {
    headersSent: false,
    setHeader: (k: string, v: string) => headers.set(k, v),
    writeHead: () => res,
  };
  return { res: res as unknown as Response, headers };
}

describe('phase', () => {
  it("is fn's own promise when the request records no phases (no wrapper)", async () => {
    const own = Promise.resolve(42);
    expect(recordingPhases()).toBe(false);
    expect(phase('x', () => own)).toBe(own);
    await expect(own).resolves.toBe(42);
  });

  it('turns a synchronous throw into a rejection, as an async function would', async () => {
    const boom = new Error('boom');
    const p = phase('x', () => {
      throw boom;
    });
    await expect(p).rejects.toBe(boom);
  });

  it('records the span into Server-Timing when the request records phases', async () => {
    const { res, headers } = fakeResponse();
    await new Promise<void>((done) =>
      phaseTimings({} as Request, res, () => {
        expect(recordingPhases()).toBe(true);
        void phase('run_record', async () => 'ok').then((v) => {
          expect(v).toBe('ok');
          res.writeHead(200);
          done();
        });
      }),
    );
    expect(headers.get('server-timing')).toMatch(/^run_record;dur=\d+\.\d{3}, server;dur=\d+\.\d{3}$/);
  });

  it('records a failed span and keeps its rejection', async () => {
    const { res, headers } = fakeResponse();
    const boom = new Error('boom');
    await new Promise<void>((done) =>
      phaseTimings({} as Request, res, () => {
        void phase('lease', () => Promise.reject(boom)).catch((e: unknown) => {
          expect(e).toBe(boom);
          res.writeHead(500);
          done();
        });
      }),
    );
    expect(headers.get('server-timing')).toMatch(/^lease;dur=/);
  });
});
