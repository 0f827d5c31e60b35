import { Module } from '@nestjs/common';

import { VectorsModule } from '../vectors/vectors.module';
import { ContractsRepository } from './contracts.repository';
import { ContractsService } from './contracts.service';

@Module({ imports: [VectorsModule], providers: [ContractsRepository, ContractsService], exports: [ContractsService] })
export class ContractsModule {}
