import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';

import { Tenant } from '../../auth/tenant.guard';
import { DocumentNotFoundException, DocumentsService } from '../../knowledge/documents/documents.service';
import { CreateDocumentDto } from '../dto/document.dto';
import { isUuid } from './ids';

@Controller('v1/documents')
export class DocumentsController {
  constructor(private readonly documents: DocumentsService) {}

  /** Add a knowledge-base document → `{ document_id, title, source, chunks }`. */
  @Post()
  @HttpCode(201)
  create(@Body() body: CreateDocumentDto, @Tenant() tenantId: string) {
    return this.documents.ingest(body, tenantId);
  }

  @Get()
  async list(@Tenant() tenantId: string) {
    return { documents: await this.documents.list(tenantId) };
  }

  /** `{ document_id, title, source, created_at, chunks: [{ index, heading, content }] }` */
  @Get(':id')
  get(@Param('id') id: string, @Tenant() tenantId: string) {
    return this.documents.get(id, tenantId);
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@Param('id') id: string, @Tenant() tenantId: string): Promise<void> {
    if (!isUuid(id)) throw new DocumentNotFoundException(id.slice(0, 128));
    await this.documents.delete(id, tenantId);
  }
}
