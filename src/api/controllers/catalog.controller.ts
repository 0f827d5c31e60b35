import { Controller, Get } from '@nestjs/common';

import { AgentRegistry } from '../../agents/agent-registry.service';
import { ApiOkResponse } from '../../platform/openapi-decorators';
import { ToolRegistry } from '../../tools/tool-registry.service';
import { ApiErrors } from '../dto/api-docs';
import { AgentListDto, ToolListDto } from '../dto/catalog.dto';

/** What this deployment offers: agents and tools (with the reason a tool is unavailable). */
@ApiErrors()
@Controller('v1')
export class CatalogController {
  constructor(
    private readonly agents: AgentRegistry,
    private readonly tools: ToolRegistry,
  ) {}

  @Get('agents')
  @ApiOkResponse({ type: AgentListDto })
  listAgents(): AgentListDto {
    return { agents: this.agents.names().map((name) => ({ name, description: this.agents.get(name)!.description })) };
  }

  @Get('tools')
  @ApiOkResponse({ type: ToolListDto })
  listTools(): ToolListDto {
    return { tools: this.tools.list() };
  }
}
