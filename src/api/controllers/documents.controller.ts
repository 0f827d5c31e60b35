import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';

import { DocumentNotFoundException, DocumentsService } from '../../knowledge/documents/documents.service';
import { CreateDocumentDto } from '../dto/document.dto';
import { isUuid } from './ids';

@Controller('v1/documents')
export class DocumentsController {
  constructor(private readonly documents: DocumentsService) {}

  /** Add a knowledge-base document → `{ document_id, title, source, chunks }`. */
  @Post()
  @HttpCode(201)
  create(@Body() body: CreateDocumentDto) {
    return this.documents.ingest(body);
  }

  @Get()
  async list() {
    return { documents: await this.documents.list() };
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@Param('id') id: string): Promise<void> {
    if (!isUuid(id)) throw new DocumentNotFoundException(id);
    await this.documents.delete(id);
  }
}
