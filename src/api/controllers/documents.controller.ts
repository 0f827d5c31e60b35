import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';

import { ResourceAccess } from '../../auth/resource-access';
import { Tenant } from '../../auth/tenant.guard';
import { DocumentNotFoundException, DocumentsService } from '../../knowledge/documents/documents.service';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse } from '../../platform/openapi-decorators';
import { ApiErrors, ApiRequestBody } from '../dto/api-docs';
import { type CreateDocumentDto, CreateDocumentSchema, DocumentDetailDto, DocumentDto, DocumentListDto } from '../dto/document.dto';
import { body } from '../validation/zod-request.pipe';
import { isUuid } from './ids';

/**
 * The knowledge base of the tenant. Every action is the policy's (auth/resource-access.ts, `documents:<action>`):
 * the tenant's users read, search and add documents; only the uploader, an admin token or an API key deletes one.
 */
@ApiErrors()
@Controller('v1/documents')
export class DocumentsController {
  constructor(
    private readonly documents: DocumentsService,
    private readonly access: ResourceAccess,
  ) {}

  /** Add a knowledge-base document → `{ document_id, title, source, chunks }`. */
  @Post()
  @HttpCode(201)
  @ApiRequestBody('CreateDocumentDto')
  @ApiCreatedResponse({ type: DocumentDto })
  async create(@Body(body(CreateDocumentSchema)) document: CreateDocumentDto, @Tenant() tenantId: string) {
    await this.access.authorize('documents', 'create', { title: document.title });
    return this.documents.ingest(document, tenantId);
  }

  @Get()
  @ApiOkResponse({ type: DocumentListDto })
  async list(@Tenant() tenantId: string) {
    return { documents: await this.documents.list(tenantId, await this.access.authorize('documents', 'search', {})) };
  }

  /** `{ document_id, title, source, created_at, chunks: [{ index, heading, content }] }` */
  @Get(':id')
  @ApiOkResponse({ type: DocumentDetailDto })
  async get(@Param('id') id: string, @Tenant() tenantId: string): Promise<DocumentDetailDto> {
    return this.documents.get(id, tenantId, await this.access.authorize('documents', 'read', { document_id: id }));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse()
  async remove(@Param('id') id: string, @Tenant() tenantId: string): Promise<void> {
    if (!isUuid(id)) throw new DocumentNotFoundException(id.slice(0, 128));
    await this.documents.delete(id, tenantId, await this.access.authorize('documents', 'delete', { document_id: id }));
  }
}
