import { Module } from '@nestjs/common';
import { DocumentsService } from './documents.service';

/** The knowledge base (retrieval backend: Postgres full-text + trigram). */
@Module({ providers: [DocumentsService], exports: [DocumentsService] })
export class DocumentsModule {}
