import { applyDecorators } from '@nestjs/common';

import { ApiDefaultResponse, ApiHeader, ApiOkResponse, ApiProduces } from '../../platform/openapi-decorators';
import { ErrorBodyDto } from './error.dto';

/** Every /v1 error answer has the same body: the generated client types its `error` with it. */
export const ApiErrors = () => ApiDefaultResponse({ type: ErrorBodyDto, description: '`{ error: { code, message } }`' });

/** Optional: a retried request with the same key answers the first run instead of starting another. */
export const ApiIdempotencyKey = () =>
  ApiHeader({ name: 'idempotency-key', required: false, description: 'retry-safe submission (same key → same run)' });

/** A Server-Sent Events endpoint; `events` names the events it sends. */
export const ApiSse = (events: string) =>
  applyDecorators(
    ApiProduces('text/event-stream'),
    ApiOkResponse({ description: `Server-Sent Events: ${events}`, content: { 'text/event-stream': { schema: { type: 'string' } } } }),
  );
