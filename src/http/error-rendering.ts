import type { Response } from 'express';

import type { Dialect } from './dialect';
import type { HttpError } from './error-mapping';

/** An error answer as a dialect renders it: status, headers, content type and body text. */
export interface RenderedError {
  status: number;
  headers: Record<string, string>;
  contentType: string;
  body: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** REST v1's envelope, which the LangGraph shape carries too */
function envelope(e: HttpError): { error: { code: string; message: string; details?: unknown } } {
  return { error: { code: e.code, message: e.message, ...(e.details !== undefined ? { details: e.details } : {}) } };
}

/**
 * Each dialect's body for one mapped error. REST v1: `{ error: { code, message, details? } }`. The LangGraph API:
 * LangGraph Server's own text (text/plain) where it answers with text, otherwise JSON with its `detail` beside
 * our `error`; our code in `X-Error-Code` either way.
 */
const RENDERERS: Record<Dialect, (e: HttpError) => RenderedError> = {
  rest: (e) => ({ status: e.status, headers: { ...e.headers }, contentType: JSON_TYPE, body: JSON.stringify(envelope(e)) }),
  langgraph: (e) => {
    const headers = { ...e.headers, 'X-Error-Code': e.code };
    if (e.platformText !== undefined) {
      return { status: e.status, headers, contentType: 'text/plain;charset=UTF-8', body: e.platformText };
    }
    return { status: e.status, headers, contentType: JSON_TYPE, body: JSON.stringify({ ...envelope(e), detail: e.message }) };
  },
  a2a: (e) => jsonRpcError(e),
};

/** JSON-RPC's codes for what is wrong with the request itself: unreadable JSON, or a body that is refused as a whole */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INTERNAL_ERROR = -32603;

/**
 * A2A's JSON-RPC endpoint: a JSON-RPC error object (`id: null`, the request was not read), with HTTP 200 for a
 * body refused before it was read (as JSON-RPC over HTTP answers it); authentication, limits and server faults
 * keep their status so that clients and proxies see them.
 */
function jsonRpcError(e: HttpError): RenderedError {
  const bodyFault = e.status === 400 || e.status === 415 || e.status === 422;
  const code = e.code === 'INVALID_JSON' ? PARSE_ERROR : e.status >= 500 ? INTERNAL_ERROR : INVALID_REQUEST;
  const error = { code, message: e.message, data: { code: e.code } };
  const headers = { ...e.headers, 'X-Error-Code': e.code };
  return { status: bodyFault ? 200 : e.status, headers, contentType: JSON_TYPE, body: JSON.stringify({ jsonrpc: '2.0', id: null, error }) };
}

export function renderError(e: HttpError, dialect: Dialect): RenderedError {
  return RENDERERS[dialect](e);
}

/** Answers `e` on an Express response in the dialect's shape (nothing when the answer has already begun). */
export function sendError(res: Response, e: HttpError, dialect: Dialect): void {
  if (res.headersSent) return;
  const answer = renderError(e, dialect);
  res.set(answer.headers).status(answer.status).type(answer.contentType).send(answer.body);
}
