import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/** headers never copied into a run's configurable: credentials and the tenant */
const BLOCKED = new Set(['x-api-key', 'x-tenant-id', 'x-service-key']);

/**
 * The request's `x-*` headers (credentials excepted) and `user-agent`, as LangGraph Server copies them into a new
 * run's `config.configurable` (over the body's own values): a graph reads e.g. `configurable["x-user-locale"]`.
 */
export function headerConfigurable(headers: Request['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [raw, value] of Object.entries(headers)) {
    const key = raw.toLowerCase();
    if (value === undefined || BLOCKED.has(key)) continue;
    if (key.startsWith('x-') || key === 'user-agent') out[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function withHeaders(body: unknown, copied: Record<string, string>): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body) || Object.keys(copied).length === 0) return body;
  const run = body as { config?: unknown };
  const config = run.config && typeof run.config === 'object' ? (run.config as { configurable?: unknown }) : {};
  const configurable = config.configurable && typeof config.configurable === 'object' ? config.configurable : {};
  return { ...run, config: { ...config, configurable: { ...configurable, ...copied } } };
}

/**
 * A run-creating body (one run, or a batch's list) with the request's headers in each run's configurable; its
 * pipes (the schema's ZodPipe) validate the result: `@RunBody(new ZodPipe(RunCreate)) body`.
 */
export const RunBody = createParamDecorator((_: unknown, ctx: ExecutionContext): unknown => {
  const req = ctx.switchToHttp().getRequest<Request>();
  const copied = headerConfigurable(req.headers);
  const body: unknown = req.body;
  return Array.isArray(body) ? body.map((run) => withHeaders(run, copied)) : withHeaders(body, copied);
});
