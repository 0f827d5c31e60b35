import { StreamableFile } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';

/** the statuses whose answers carry no body (express strips it) */
const BODILESS = new Set([204, 205, 304]);

/** whether a handler's result can be written as JSON here, or is left to express (see ApiExpressAdapter) */
function plainJson(response: Response, body: unknown): body is object {
  const method = response.req?.method;
  return (
    method !== 'GET' &&
    method !== 'HEAD' &&
    typeof body === 'object' &&
    body !== null &&
    !(body instanceof StreamableFile) &&
    !ArrayBuffer.isView(body) &&
    !BODILESS.has(response.statusCode) &&
    response.getHeader('content-type') === undefined
  );
}

/**
 * Nest's Express adapter, answering a handler's JSON result to a request that is not a GET or HEAD in one write:
 * the body serialised once, `Content-Type` and `Content-Length` set directly. Express's `res.json` would also
 * hash the body into an ETag (only GET and HEAD requests can be revalidated against one) and re-parse the
 * content type to add the charset. GET and HEAD answers, bodiless statuses, files and handlers that chose their
 * content type go through Express as before (ETag, 304, HEAD without body).
 */
export class ApiExpressAdapter extends ExpressAdapter {
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (statusCode) response.status(statusCode);
    if (!plainJson(response, body)) return super.reply(response, body);
    const json = JSON.stringify(body) as string | undefined;
    if (json === undefined) return response.end(); // a toJSON() that gives nothing: express sends no body either
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.setHeader('Content-Length', Buffer.byteLength(json));
    return response.end(json);
  }
}
