import { Module } from '@nestjs/common';
import { VectorsModule } from '../vectors/vectors.module';
import { DocumentsService } from './documents.service';

/** The knowledge base (retrieval backend: Postgres full-text + trigram, plus pgvector when embeddings are configured). */
@Module({ imports: [VectorsModule], providers: [DocumentsService], exports: [DocumentsService] })
export class DocumentsModule {}
