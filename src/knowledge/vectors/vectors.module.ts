import { Module } from '@nestjs/common';

import { VectorSearch } from './vector-search.service';

@Module({ providers: [VectorSearch], exports: [VectorSearch] })
export class VectorsModule {}
