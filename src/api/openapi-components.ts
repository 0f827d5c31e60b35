import type { OpenAPIObject } from '@nestjs/swagger';

type Schemas = NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>;

/** the component names `node` refers to (`$ref: '#/components/schemas/X'`), in document order */
function* refs(node: unknown): Generator<string> {
  if (Array.isArray(node)) for (const v of node) yield* refs(v);
  else if (node && typeof node === 'object') {
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string') yield ref.slice(ref.lastIndexOf('/') + 1);
    for (const v of Object.values(node)) yield* refs(v);
  }
}

/**
 * The components in the order the routes first use them (an operation's error answer, body, parameters, then its
 * answers; a component after those it refers to), whoever described them (Nest's decorators or a zod schema): the
 * generated client (src/client/schema.ts) lists them in this order. Components no route uses keep their place last.
 */
export function componentsInRouteOrder(doc: OpenAPIObject, schemas: Schemas): Schemas {
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name) || !(name in schemas)) return;
    seen.add(name); // before its references: a cycle ends here
    for (const r of refs(schemas[name])) visit(r);
    order.push(name);
  };
  for (const operations of Object.values(doc.paths)) {
    for (const op of Object.values(operations as Record<string, { responses?: Record<string, unknown> } & Record<string, unknown>>)) {
      const { default: error, ...answers } = op?.responses ?? {};
      for (const part of [error, op?.requestBody, op?.parameters, answers]) for (const r of refs(part)) visit(r);
    }
  }
  for (const name of Object.keys(schemas)) if (!seen.has(name)) order.push(name);
  return Object.fromEntries(order.map((name) => [name, schemas[name]]));
}
