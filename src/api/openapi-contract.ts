import type { OpenAPIObject } from '@nestjs/swagger';

type Json = Record<string, unknown>;

/** what a schema says about the data (not its words): type, enum, nullability, references, constraints' absence */
function shape(schema: unknown): unknown {
  if (!schema || typeof schema !== 'object') return schema;
  const s = schema as Json;
  if (typeof s.$ref === 'string') return { ref: s.$ref.slice(s.$ref.lastIndexOf('/') + 1) };
  const type = s.type === 'integer' ? 'number' : s.type; // `limit` was a number with a minimum; it is an integer
  return {
    ...(type ? { type } : {}),
    ...(s.enum ? { enum: s.enum } : {}),
    ...(s.nullable ? { nullable: true } : {}),
    ...(s.items ? { items: shape(s.items) } : {}),
    ...(s.allOf ? { allOf: (s.allOf as unknown[]).map(shape) } : {}),
    ...(s.properties ? { properties: Object.fromEntries(Object.entries(s.properties as Json).map(([k, v]) => [k, shape(v)])) } : {}),
    ...(s.required ? { required: [...(s.required as string[])].sort() } : {}),
    ...(s.additionalProperties !== undefined && s.additionalProperties !== false ? { additionalProperties: true } : {}),
  };
}

function content(c: unknown): unknown {
  return Object.fromEntries(Object.entries((c ?? {}) as Record<string, { schema?: unknown }>).map(([type, v]) => [type, shape(v.schema)]));
}

/**
 * REST v1's contract as its OpenAPI document states it: paths, methods, parameters, request bodies, answers and
 * every component's properties, required lists and enums — without descriptions, examples and the order of keys,
 * which may change without a client noticing. The snapshot test (src/openapi.spec.ts) compares it with the one committed.
 */
export function restV1Contract(doc: OpenAPIObject): Json {
  const paths: Json = {};
  for (const [path, operations] of Object.entries(doc.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const [method, op] of Object.entries(operations as Record<string, Json>)) {
      const parameters = ((op.parameters ?? []) as Json[]).map((p) => ({
        name: p.name,
        in: p.in,
        required: !!p.required,
        schema: shape(p.schema),
      }));
      const body = op.requestBody as { required?: boolean; content?: unknown } | undefined;
      const responses = Object.fromEntries(
        Object.entries((op.responses ?? {}) as Record<string, { content?: unknown }>).map(([s, r]) => [s, content(r.content)]),
      );
      paths[`${method.toUpperCase()} ${path}`] = {
        parameters,
        ...(body ? { body: { required: !!body.required, content: content(body.content) } } : {}),
        responses,
      };
    }
  }
  const schemas = Object.fromEntries(Object.entries(doc.components?.schemas ?? {}).map(([name, s]) => [name, shape(s)]));
  return { security: doc.security, paths, schemas };
}
