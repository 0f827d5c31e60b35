import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

/** The OpenAPI document served at /docs/openapi.json and the typed client (src/client) is generated from. */
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
  return SwaggerModule.createDocument(app, openapi);
}
