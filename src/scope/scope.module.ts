import { Module } from '@nestjs/common';

import { LlmModule } from '../llm/llm.module';
import { ScopeValidator } from './scope-validator.service';

@Module({ imports: [LlmModule], providers: [ScopeValidator], exports: [ScopeValidator] })
export class ScopeModule {}
