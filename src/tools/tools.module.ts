import { Module } from '@nestjs/common';

import { DocumentsModule } from '../knowledge/documents/documents.module';
import { McpHealthIndicator } from './mcp/mcp.health';
import { McpToolSource } from './mcp/mcp-tool-source.service';
import { ToolRegistry } from './tool-registry.service';

@Module({
  imports: [DocumentsModule],
  providers: [ToolRegistry, McpToolSource, McpHealthIndicator],
  exports: [ToolRegistry, McpHealthIndicator],
})
export class ToolsModule {}
