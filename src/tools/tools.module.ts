import { Module } from '@nestjs/common';

import { DocumentsModule } from '../knowledge/documents/documents.module';
import { ToolRegistry } from './tool-registry.service';

@Module({ imports: [DocumentsModule], providers: [ToolRegistry], exports: [ToolRegistry] })
export class ToolsModule {}
