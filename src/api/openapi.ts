import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

import { REQUEST_BODIES } from './dto/api-docs';
import { componentsInRouteOrder } from './openapi-components';
import { openApiSchema } from './validation/openapi-schema';

/**
 * The OpenAPI document served at /docs/openapi.json and the typed client (src/client) is generated from: routes and
 * answers from the controllers' decorators, request bodies from the zod schemas that validate them.
 */
export function createOpenApiDocument(app: INestApplication): OpenAPIObject {
  const openapi = new DocumentBuilder()
    .setTitle('Agent Orchestrator')
    .setDescription('LangGraph.js agents behind a REST API: sync turns, queued runs, sessions, traces.')
    .setVersion('v1')
    // with API keys configured: either header (see API_KEYS)
    .addBearerAuth({ type: 'http', scheme: 'bearer' }, 'bearer')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key' }, 'x-api-key')
    .addSecurityRequirements('bearer')
    .addSecurityRequirements('x-api-key')
    .build();
  const document = SwaggerModule.createDocument(app, openapi);
  const bodies = Object.fromEntries(Object.entries(REQUEST_BODIES).map(([name, schema]) => [name, openApiSchema(schema)]));
  document.components = {
    ...document.components,
    schemas: componentsInRouteOrder(document, { ...document.components?.schemas, ...bodies }),
  };
  return document;
}
