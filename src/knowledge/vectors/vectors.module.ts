import { Module } from '@nestjs/common';

import { VectorSearch } from './vector-search.service';
import { VectorsRepository } from './vectors.repository';

@Module({ providers: [VectorsRepository, VectorSearch], exports: [VectorSearch] })
export class VectorsModule {}
