import { Controller, Get } from '@nestjs/common';

import { AgentRegistry } from '../../agents/agent-registry.service';
import { ToolRegistry } from '../../tools/tool-registry.service';

/** What this deployment offers: agents and tools (with the reason a tool is unavailable). */
@Controller('v1')
export class CatalogController {
  constructor(
    private readonly agents: AgentRegistry,
    private readonly tools: ToolRegistry,
  ) {}

  @Get('agents')
  listAgents() {
    return { agents: this.agents.names().map((name) => ({ name, description: this.agents.get(name)!.description })) };
  }

  @Get('tools')
  listTools() {
    return { tools: this.tools.list() };
  }
}
