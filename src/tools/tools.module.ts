import { Module } from '@nestjs/common';

import { DocumentsModule } from '../knowledge/documents/documents.module';
import { A2aHealthIndicator } from './a2a/a2a.health';
import { A2aAgentSource } from './a2a/a2a-agent-source.service';
import { McpHealthIndicator } from './mcp/mcp.health';
import { McpToolSource } from './mcp/mcp-tool-source.service';
import { ToolRegistry } from './tool-registry.service';

@Module({
  imports: [DocumentsModule],
  providers: [ToolRegistry, McpToolSource, McpHealthIndicator, A2aAgentSource, A2aHealthIndicator],
  exports: [ToolRegistry, McpHealthIndicator, A2aAgentSource, A2aHealthIndicator],
})
export class ToolsModule {}
