import type { IncomingMessage, ServerResponse } from 'node:http';

import { processLogger } from './logger';

type Req = IncomingMessage & {
  id?: string;
  tenantId?: string;
  principal?: { userId?: string };
  originalUrl?: string;
  route?: { path?: string };
};

/** Health checks and scrapes are not logged (they would drown the rest); an error on their response still is. */
const UNLOGGED = /^\/(health|metrics)(\/|$|\?)/;

/**
 * Each request's one completion line, written when its response finishes (or its connection closes first):
 * method, route pattern (never ids), status, time, request id, tenant, a token's user. No headers (keys live
 * there). A response that errored, or a 5xx, is written with its error. Nothing is built when info lines are off.
 */
export function logRequestEnd(req: Req, res: ServerResponse): void {
  const started = Date.now();
  let written = false;
  const write = (err?: Error) => {
    if (written) return;
    written = true;
    res.off('finish', done).off('close', done).off('error', write);
    const log = processLogger();
    if (!log?.isLevelEnabled('info')) return;
    const line = {
      request_id: req.id,
      req: { method: req.method, url: (req.originalUrl ?? req.url ?? '').split('?')[0] },
      res: { status: res.statusCode },
      responseTime: Date.now() - started,
      tenant_id: req.tenantId,
      user_id: req.principal?.userId,
      route: req.route?.path,
    };
    if (err || res.statusCode >= 500)
      log.info({ ...line, err: err ?? new Error(`failed with status code ${res.statusCode}`) }, 'request errored');
    else log.info(line, `${req.method} ${req.route?.path ?? 'unmatched'} ${res.statusCode}`);
  };
  const done = () => write();
  if (!UNLOGGED.test(req.url ?? '')) res.on('finish', done).on('close', done);
  res.on('error', write);
}
