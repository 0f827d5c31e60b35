import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger, NotFoundException } from '@nestjs/common';
import type { Request, Response } from 'express';
import { QueryFailedError } from 'typeorm';

import { DomainException } from '../../core/errors';
import { POOLER_UNAVAILABLE } from '../../database/pooler-errors';
import { allowedMethods } from '../allowed-methods';

interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
  /** the LangGraph Server API's error field (`{"detail": "..."}`), beside ours on routes outside /v1 */
  detail?: string;
}

const DB_DOWN =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|Connection terminated|connect ECONN|timeout exceeded when trying to connect|Client has encountered a connection error|terminating connection|the database system is (starting|shutting) up|Too many connections/i;

const REST_V1 = /^(\/[\w.-]+)*\/v1\//;

/** The one place domain and infrastructure errors become HTTP answers. Bodies never carry stack traces. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Http');

  catch(exception: unknown, host: ArgumentsHost): void {
    this.answer(exception, host.switchToHttp().getRequest<Request | undefined>(), host.switchToHttp().getResponse<Response>());
  }

  /** The answer to `exception`; also for middleware that refuses a request before any route (authentication). */
  answer(exception: unknown, req: Request | undefined, res: Response): void {
    const [status, body] = this.methodNotAllowed(exception, req) ?? this.map(exception);
    if (status >= 500 && !(exception instanceof DomainException)) {
      const err = exception as Error;
      this.logger.error({ msg: 'request failed', status, code: body.error.code, err: err?.stack ?? String(exception) });
    }
    if (res.headersSent) return;
    const path = req?.path ?? '';
    if (status === 405) res.setHeader('Allow', (body.error.details as string[]).join(', '));
    if (exception instanceof DomainException && exception.headers) res.set(exception.headers);
    // REST v1 also under an embedding host's prefix (`/agents/v1/...`)
    if (REST_V1.test(path)) return void res.status(status).json(body);
    res.setHeader('X-Error-Code', body.error.code);
    const text = exception instanceof DomainException ? exception.platformText : undefined;
    // LangGraph Server's text answers as it sends them (text/plain); ours in JSON with its `detail`
    if (text !== undefined) return void res.status(status).type('text/plain;charset=UTF-8').send(text);
    res.status(status).json({ ...body, detail: body.error.message });
  }

  /** No route for this method, but routes for others on the path (Nest's not-found handler): 405 with what `Allow`s. */
  private methodNotAllowed(e: unknown, req: Request | undefined): [number, ErrorBody] | null {
    if (!req || !(e instanceof NotFoundException) || !e.message.startsWith(`Cannot ${req.method} `)) return null;
    const allow = allowedMethods(req.app, req.path);
    if (!allow.length) return null;
    const message = `${req.method} is not allowed on ${req.path.slice(0, 200)}; allowed: ${allow.join(', ')}`;
    return [405, { error: { code: 'METHOD_NOT_ALLOWED', message, details: allow } }];
  }

  private map(e: unknown): [number, ErrorBody] {
    if (e instanceof DomainException) {
      return [e.status, { error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) } }];
    }
    const bodyParser = e as { type?: string; status?: number; message?: string };
    if (bodyParser?.type === 'entity.parse.failed') {
      return [400, { error: { code: 'INVALID_JSON', message: 'request body is not valid JSON' } }];
    }
    if (bodyParser?.type === 'entity.too.large') {
      return [413, { error: { code: 'PAYLOAD_TOO_LARGE', message: 'request body exceeds MAX_BODY_BYTES' } }];
    }
    if (e instanceof HttpException) return this.fromHttp(e);
    // other client errors of the body parser (a gzip header on a plain body, an unsupported charset …)
    const clientError = e as { status?: unknown; expose?: unknown; message?: string };
    if (typeof clientError?.status === 'number' && clientError.status >= 400 && clientError.status < 500 && clientError.expose === true) {
      const code =
        clientError.status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : clientError.status === 413 ? 'PAYLOAD_TOO_LARGE' : 'INVALID_BODY';
      return [
        clientError.status,
        { error: { code, message: `the request body cannot be read: ${String(clientError.message).slice(0, 200)}` } },
      ];
    }
    const message = (e as Error)?.message ?? '';
    const dbDown = DB_DOWN.test(message) || POOLER_UNAVAILABLE.test(message);
    if ((e instanceof QueryFailedError && dbDown) || (dbDown && !/redis/i.test(message))) {
      return [503, { error: { code: 'DATABASE_UNAVAILABLE', message: 'the database is unreachable; try again shortly' } }];
    }
    if (/redis|ioredis|Connection is closed/i.test(message)) {
      return [503, { error: { code: 'QUEUE_UNAVAILABLE', message: 'the queue (Redis) is unreachable; try again shortly' } }];
    }
    return [HttpStatus.INTERNAL_SERVER_ERROR, { error: { code: 'INTERNAL_ERROR', message: 'internal error' } }];
  }

  private fromHttp(e: HttpException): [number, ErrorBody] {
    const status = e.getStatus();
    const response = e.getResponse() as string | { message?: string | string[] };
    const raw = typeof response === 'string' ? response : response.message;
    // body-parser's JSON SyntaxError reaches us as a 400 with a plain string (validation errors are arrays)
    if (status === 400 && typeof raw === 'string' && /JSON/.test(raw)) {
      return [400, { error: { code: 'INVALID_JSON', message: `request body is not valid JSON: ${raw}` } }];
    }
    const messages = Array.isArray(raw) ? raw : [raw ?? e.message];
    const code =
      status === 400
        ? 'VALIDATION_FAILED'
        : status === 404
          ? 'NOT_FOUND'
          : status === 413
            ? 'PAYLOAD_TOO_LARGE'
            : (HttpStatus[status] ?? 'HTTP_ERROR');
    return [status, { error: { code, message: messages.join('; '), ...(messages.length > 1 ? { details: messages } : {}) } }];
  }
}
