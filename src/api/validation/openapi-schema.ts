import { z } from 'zod';

/** An OpenAPI 3.0 Schema Object. */
export type OpenApiSchema = Record<string, unknown> & { properties?: Record<string, OpenApiSchema>; required?: string[] };

/** A request schema as OpenAPI 3.0 describes it: what a client may send (zod's input side). */
export function openApiSchema(schema: z.ZodType): OpenApiSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input' }) as OpenApiSchema;
  return json;
}
