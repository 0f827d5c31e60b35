import { randomUUID } from 'node:crypto';

import type { NextFunction, Request, Response } from 'express';

import { withRequest } from './log-context';
import { logRequestEnd } from './request-log';
import { endSpan, SpanKind, startSpan, withSpan, withTraceParent } from './tracing';

/** A client's `x-request-id` is kept when it looks like an id (it is echoed and logged). */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** what authentication put on the request (auth/auth.middleware.ts; observability imports no feature module) */
type ContextRequest = Request & { id?: string; tenantId?: string; principal?: { userId?: string } };

/**
 * After authentication: gives the request its id (`x-request-id`, echoed) and its completion line
 * (request-log.ts), opens its log context (request id, tenant)
 * and, with tracing on, its server span (continuing a `traceparent` header) that runs, queued jobs and
 * model calls hang under.
 */
export function requestContext(req: ContextRequest, res: Response, next: NextFunction): void {
  const given = req.headers['x-request-id'];
  req.id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  res.setHeader('x-request-id', req.id);
  logRequestEnd(req, res);
  withRequest(req.id, req.tenantId, req.principal?.userId, () =>
    withTraceParent(req.headers, () => {
      const span = startSpan(
        `${req.method}`,
        { 'http.request.method': req.method, 'url.path': req.path, 'enduser.tenant': req.tenantId ?? '' },
        { kind: SpanKind.SERVER },
      );
      if (span) {
        res.on('finish', () => {
          const route = (req.route as { path?: string } | undefined)?.path;
          if (route) span.updateName(`${req.method} ${route}`).setAttribute('http.route', route);
          span.setAttribute('http.response.status_code', res.statusCode);
          endSpan(span, res.statusCode >= 500 ? `HTTP ${res.statusCode}` : undefined);
        });
      }
      withSpan(span, next);
    }),
  );
}
