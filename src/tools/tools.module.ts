import { Module } from '@nestjs/common';
import { ToolRegistry } from './tool-registry.service';

@Module({ providers: [ToolRegistry], exports: [ToolRegistry] })
export class ToolsModule {}
