import { applyDecorators } from '@nestjs/common';
import type { z } from 'zod';

import { ApiBody, ApiDefaultResponse, ApiHeader, ApiOkResponse, ApiProduces, ApiQuery } from '../../platform/openapi-decorators';
import { openApiSchema } from '../validation/openapi-schema';
import { ChatRequestSchema } from './chat-request.dto';
import { CreateContractSchema } from './contract.dto';
import { CreateDocumentSchema } from './document.dto';
import { ErrorBodyDto } from './error.dto';

/** The request bodies (zod schemas) the OpenAPI document lists as components, by name (src/api/openapi.ts). */
export const REQUEST_BODIES = {
  ChatRequestDto: ChatRequestSchema,
  CreateDocumentDto: CreateDocumentSchema,
  CreateContractDto: CreateContractSchema,
} as const;

/** The route's JSON body is this schema (and so are the fields of a multipart body, with `ApiConsumes`). */
export const ApiRequestBody = (name: keyof typeof REQUEST_BODIES) =>
  ApiBody({ required: true, schema: { $ref: `#/components/schemas/${name}` } });

/** The route's query parameters, one per property of its zod schema. */
export function ApiQueryParams(schema: z.ZodObject) {
  const { properties = {}, required = [] } = openApiSchema(schema);
  return applyDecorators(
    ...Object.entries(properties).map(([name, { description, ...param }]) =>
      ApiQuery({ name, required: required.includes(name), ...(description ? { description: String(description) } : {}), schema: param }),
    ),
  );
}

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
