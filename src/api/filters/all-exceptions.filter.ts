import { ArgumentsHost, Catch, ExceptionFilter, Logger, NotFoundException } from '@nestjs/common';
import type { Request, Response } from 'express';

import { DomainException } from '../../core/errors';
import { dialectOf } from '../../http/dialect';
import { type HttpError, httpErrorOf, methodNotAllowed } from '../../http/error-mapping';
import { sendError } from '../../http/error-rendering';
import { allowedMethods } from '../allowed-methods';

/**
 * Nest's side of the one error mapping (http/error-mapping.ts): every exception of a route, and every refusal of
 * the middleware before the routes (authentication, the request edge: `answer`), answered in the dialect of its
 * path (http/dialect.ts). Bodies never carry stack traces; a 5xx that is not a domain error is logged with its own.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Http');

  catch(exception: unknown, host: ArgumentsHost): void {
    this.answer(exception, host.switchToHttp().getRequest<Request | undefined>(), host.switchToHttp().getResponse<Response>());
  }

  /** The answer to `exception`; also for middleware that refuses a request before any route (authentication). */
  answer(exception: unknown, req: Request | undefined, res: Response): void {
    const error = this.methodNotAllowed(exception, req) ?? httpErrorOf(exception);
    if (error.status >= 500 && !(exception instanceof DomainException)) {
      const err = exception as Error;
      this.logger.error({ msg: 'request failed', status: error.status, code: error.code, err: err?.stack ?? String(exception) });
    }
    sendError(res, error, dialectOf(req?.path));
  }

  /** No route for this method, but routes for others on the path (Nest's not-found handler): 405 with what `Allow`s. */
  private methodNotAllowed(e: unknown, req: Request | undefined): HttpError | null {
    if (!req || !(e instanceof NotFoundException) || !e.message.startsWith(`Cannot ${req.method} `)) return null;
    const allow = allowedMethods(req.app, req.path);
    return allow.length ? methodNotAllowed(req.method, req.path, allow) : null;
  }
}
