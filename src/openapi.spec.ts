import 'reflect-metadata';

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { NestFactory } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';

import { createOpenApiDocument } from './api/openapi';
import { restV1Contract } from './api/openapi-contract';
import { AppModule } from './app.module';

const SNAPSHOT = path.join(__dirname, 'api', 'openapi-contract.snapshot.json');

/**
 * REST v1's contract does not change with how its schemas are written: the document's paths, methods, parameters,
 * bodies, answers and components (properties, required lists, enums) are the committed snapshot's, which was taken
 * from the document the class-validator DTOs produced. A deliberate change updates the snapshot in the same commit.
 */
describe('REST v1 OpenAPI document', () => {
  let doc: OpenAPIObject;

  beforeAll(async () => {
    // preview: the module graph and the controllers' metadata, no provider instantiated (no database)
    const app = await NestFactory.create(AppModule.forRoot({}), { preview: true, logger: false, abortOnError: false });
    try {
      doc = createOpenApiDocument(app);
    } finally {
      await app.close();
    }
  });

  it('states the contract of the committed snapshot', () => {
    expect(restV1Contract(doc)).toEqual(JSON.parse(readFileSync(SNAPSHOT, 'utf8')));
  });

  it('describes request bodies from their zod schemas: unknown fields refused, limits stated', () => {
    const chat = doc.components!.schemas!.ChatRequestDto as Record<string, any>;
    expect(chat).toMatchObject({ type: 'object', required: ['message'], additionalProperties: false });
    expect(chat.properties.agent).toMatchObject({ type: 'string', maxLength: 64 });
    expect(chat.properties.allow_tools).toMatchObject({ type: 'array', maxItems: 32, items: { type: 'string', maxLength: 64 } });
    expect(doc.components!.schemas!.CreateContractDto).toMatchObject({
      properties: { kind: { enum: ['user', 'standard'], default: 'user' } },
    });
  });

  it('lists each component once, after the components it refers to', () => {
    const names = Object.keys(doc.components!.schemas!);
    expect(new Set(names).size).toBe(names.length);
    expect(names.indexOf('ErrorDetailDto')).toBeLessThan(names.indexOf('ErrorBodyDto'));
    expect(names.indexOf('ChatRequestDto')).toBeLessThan(names.indexOf('ChatResultDto'));
  });
});
