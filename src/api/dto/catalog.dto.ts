import { ApiProperty, ApiPropertyOptional } from '../../platform/openapi-decorators';

export class AgentInfoDto {
  @ApiProperty({ example: 'react' })
  name: string;

  @ApiProperty()
  description: string;
}

export class AgentListDto {
  @ApiProperty({ type: [AgentInfoDto] })
  agents: AgentInfoDto[];
}

export class ToolInfoDto {
  @ApiProperty({ example: 'calculator' })
  name: string;

  @ApiProperty()
  description: string;

  @ApiProperty({ description: 'false: not configured here (see `reason`)' })
  available: boolean;

  @ApiPropertyOptional()
  reason?: string;

  @ApiProperty({ enum: ['low', 'high'], description: '`high`: blocked in a turn holding retrieved or tool-produced text unless asked' })
  risk: 'low' | 'high';

  @ApiPropertyOptional({ description: 'the MCP server (MCP_SERVERS) the tool comes from; absent for built-in tools' })
  server?: string;
}

export class ToolListDto {
  @ApiProperty({ type: [ToolInfoDto] })
  tools: ToolInfoDto[];
}
