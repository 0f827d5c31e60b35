import { HttpException, HttpStatus } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';

import { DomainException } from '../core/errors';
import { POOLER_UNAVAILABLE } from '../database/pooler-errors';

/** What an error answers over HTTP, before any dialect gives it a body. Never a stack trace. */
export interface HttpError {
  status: number;
  /** stable, upper snake case: what clients branch on */
  code: string;
  message: string;
  details?: unknown;
  /** response headers that go with the answer (`WWW-Authenticate` of a 401, `Allow` of a 405) */
  headers?: Record<string, string>;
  /** the text LangGraph Server answers this error with (text/plain), on the LangGraph API's routes */
  platformText?: string;
}

const DB_DOWN =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|Connection terminated|connect ECONN|timeout exceeded when trying to connect|Client has encountered a connection error|terminating connection|the database system is (starting|shutting) up|Too many connections/i;
const REDIS_DOWN = /redis|ioredis|Connection is closed/i;

const INTERNAL: HttpError = { status: HttpStatus.INTERNAL_SERVER_ERROR, code: 'INTERNAL_ERROR', message: 'internal error' };

/**
 * The one mapping of errors to HTTP answers, for every dialect and every place that answers an error (the
 * exception filter, the body guards, Node's parser errors, the UI bundles): domain errors carry their own status
 * and code; the body parser's, Nest's and the infrastructure's errors are named here; anything else is a 500
 * `INTERNAL_ERROR` that says nothing of its cause (the filter logs it).
 */
export function httpErrorOf(e: unknown): HttpError {
  if (e instanceof DomainException) return fromDomain(e);
  const parser = e as { type?: string; status?: unknown; expose?: unknown; message?: string } | null | undefined;
  if (parser?.type === 'entity.parse.failed') return { status: 400, code: 'INVALID_JSON', message: 'request body is not valid JSON' };
  if (parser?.type === 'entity.too.large') {
    return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'request body exceeds MAX_BODY_BYTES' };
  }
  if (e instanceof HttpException) return fromHttp(e);
  // other client errors of the body parser (a gzip header on a plain body, an unsupported charset …)
  if (typeof parser?.status === 'number' && parser.status >= 400 && parser.status < 500 && parser.expose === true) {
    const code = parser.status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : parser.status === 413 ? 'PAYLOAD_TOO_LARGE' : 'INVALID_BODY';
    return { status: parser.status, code, message: `the request body cannot be read: ${String(parser.message).slice(0, 200)}` };
  }
  const message = (e as Error | undefined)?.message ?? '';
  const dbDown = DB_DOWN.test(message) || POOLER_UNAVAILABLE.test(message);
  if ((e instanceof QueryFailedError && dbDown) || (dbDown && !/redis/i.test(message))) {
    return { status: 503, code: 'DATABASE_UNAVAILABLE', message: 'the database is unreachable; try again shortly' };
  }
  if (REDIS_DOWN.test(message))
    return { status: 503, code: 'QUEUE_UNAVAILABLE', message: 'the queue (Redis) is unreachable; try again shortly' };
  return INTERNAL;
}

/** 405 for a path whose routes answer other methods (`allow`, sorted): the `Allow` header lists them. */
export function methodNotAllowed(method: string, path: string, allow: string[]): HttpError {
  const message = `${method} is not allowed on ${path.slice(0, 200)}; allowed: ${allow.join(', ')}`;
  return { status: 405, code: 'METHOD_NOT_ALLOWED', message, details: allow, headers: { Allow: allow.join(', ') } };
}

function fromDomain(e: DomainException): HttpError {
  return {
    status: e.status,
    code: e.code,
    message: e.message,
    ...(e.details ? { details: e.details } : {}),
    ...(e.headers ? { headers: e.headers } : {}),
    ...(e.platformText !== undefined ? { platformText: e.platformText } : {}),
  };
}

function fromHttp(e: HttpException): HttpError {
  const status = e.getStatus();
  const response = e.getResponse() as string | { message?: string | string[] };
  const raw = typeof response === 'string' ? response : response.message;
  // body-parser's JSON SyntaxError reaches us as a 400 with a plain string (validation errors are arrays)
  if (status === 400 && typeof raw === 'string' && /JSON/.test(raw)) {
    return { status: 400, code: 'INVALID_JSON', message: `request body is not valid JSON: ${raw}` };
  }
  const messages = Array.isArray(raw) ? raw : [raw ?? e.message];
  const code = HTTP_CODES[status] ?? HttpStatus[status] ?? 'HTTP_ERROR';
  return { status, code, message: messages.join('; '), ...(messages.length > 1 ? { details: messages } : {}) };
}

/** Nest's exceptions by status, where our code is not the status's name */
const HTTP_CODES: Record<number, string> = { 400: 'VALIDATION_FAILED', 404: 'NOT_FOUND', 413: 'PAYLOAD_TOO_LARGE' };
