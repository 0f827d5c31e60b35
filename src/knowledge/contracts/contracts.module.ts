import { Module } from '@nestjs/common';

import { VectorsModule } from '../vectors/vectors.module';
import { ContractsService } from './contracts.service';

@Module({ imports: [VectorsModule], providers: [ContractsService], exports: [ContractsService] })
export class ContractsModule {}
