import { Module } from '@nestjs/common';

import { AppConfig } from '../../config/app-config';
import { VectorsModule } from '../vectors/vectors.module';
import { DocumentsRepository } from './documents.repository';
import { DocumentsService } from './documents.service';
import { PostgresRetrieval } from './postgres-retrieval';
import { RetrievalBackend } from './retrieval-backend';

/** The knowledge base; retrieval by KNOWLEDGE_BACKEND: `postgres` (full-text + trigram, + pgvector) or `opensearch`. */
@Module({
  imports: [VectorsModule],
  providers: [
    DocumentsRepository,
    DocumentsService,
    PostgresRetrieval,
    {
      provide: RetrievalBackend,
      inject: [AppConfig, PostgresRetrieval],
      // the OpenSearch client (some 550 modules) is loaded only where it is the backend
      useFactory: async (config: AppConfig, postgres: PostgresRetrieval) =>
        config.knowledge.backend === 'opensearch' ? new (await import('./opensearch-retrieval')).OpenSearchRetrieval(config) : postgres,
    },
  ],
  exports: [DocumentsService],
})
export class DocumentsModule {}
