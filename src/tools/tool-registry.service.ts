import type { StructuredToolInterface } from '@langchain/core/tools';
import { Inject, Injectable, OnModuleInit, Optional } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { DocumentsService } from '../knowledge/documents/documents.service';
import { a2aToolName } from './a2a/a2a-card';
import { calculatorTool } from './basic/calculator.tool';
import { createDatetimeTool } from './basic/datetime.tool';
import { createKnowledgeBaseTool } from './basic/knowledge-base.tool';
import { createGeneralTools } from './general';
import { HOST_TOOLS, type HostTools } from './host-tools';
import { guardTool } from './tool-guard';
import { type ToolRisk, toolRisk } from './tool-risk';

export interface ToolInfo {
  name: string;
  description: string;
  available: boolean;
  reason?: string;
  /** `high`: blocked in a turn holding retrieved or tool-produced text without consent (tool-consent.ts) */
  risk: ToolRisk;
  /** the MCP server the tool comes from (MCP_SERVERS); absent for this service's own tools */
  server?: string;
}

/** An agent's allow-list as picked: tools registered later that it names join `tools` (see `pick`). */
interface LivePick {
  names: readonly string[];
  tools: StructuredToolInterface[];
}

/** Whether an allow-list entry names a tool: its exact name, or `<server>__*` for every tool of an MCP server. */
function allows(entry: string, name: string): boolean {
  return entry.endsWith('__*') ? name.startsWith(entry.slice(0, -1)) : entry === name;
}

/** Every tool the service knows, and which of them an agent may use (per-agent allow-lists). */
@Injectable()
export class ToolRegistry implements OnModuleInit {
  private readonly tools = new Map<string, StructuredToolInterface>();
  private readonly unavailable = new Map<string, string>();
  private readonly servers = new Map<string, string>();
  private readonly livePicks: LivePick[] = [];
  private hostToolsAdded = false;

  constructor(
    @Optional() private readonly config?: AppConfig,
    @Optional() documents?: DocumentsService,
    @Optional() @Inject(HOST_TOOLS) private readonly host?: HostTools,
  ) {
    this.register(calculatorTool);
    this.register(createDatetimeTool(config?.defaultTimeZone));
    if (documents) this.register(createKnowledgeBaseTool(documents));
    if (config) this.registerGeneral(config);
  }

  onModuleInit(): void {
    this.addHostTools();
  }

  /**
   * An embedding host's tools (options and `@OrchestratorTool` methods), once every provider exists; also
   * called from `pick`, since the agent registry may build its agents before this module's init hook ran.
   */
  private addHostTools(): void {
    if (this.hostToolsAdded || !this.host) return;
    this.hostToolsAdded = true;
    for (const t of this.host.tools()) {
      if (this.tools.has(t.name)) throw new Error(`Invalid configuration: host tool "${t.name}" has the name of a built-in tool`);
      this.register(t);
    }
  }

  /** search_wikipedia, get_weather, web_search, read_file, python_repl — each only when its settings allow. */
  private registerGeneral({ tools: t }: AppConfig): void {
    const network = { enabled: t.network, timeoutMs: t.timeoutMs, allowedPrivateHosts: t.allowedPrivateHosts };
    const { tools, unavailable } = createGeneralTools({
      network,
      wikipedia: { baseUrl: t.wikipedia.baseUrl, language: t.wikipedia.language },
      weather: { apiKey: t.weather.apiKey, baseUrl: t.weather.baseUrl },
      webSearch: { apiKey: t.webSearch.apiKey, baseUrl: t.webSearch.baseUrl },
      readFile: { root: t.readFileRoot },
      pythonRepl: { enabled: t.pythonRepl.enabled, timeoutMs: t.pythonRepl.timeoutMs },
    });
    for (const tool of tools) this.register(tool);
    for (const u of unavailable) this.markUnavailable(u.name, u.reason);
  }

  /**
   * Adds (or replaces, for an MCP server that reconnected) a tool; `server`: the MCP server it comes from. The
   * allow-lists already picked that name it get it at once (a server that came up after the agents were built).
   */
  register(t: StructuredToolInterface, server?: string): void {
    this.tools.set(t.name, t);
    this.unavailable.delete(t.name);
    if (server) this.servers.set(t.name, server);
    for (const pick of this.livePicks) {
      if (!pick.names.some((n) => allows(n, t.name))) continue;
      const at = pick.tools.findIndex((p) => p.name === t.name);
      if (at >= 0) pick.tools[at] = guardTool(t);
      else pick.tools.push(guardTool(t));
    }
  }

  markUnavailable(name: string, reason: string): void {
    if (!this.tools.has(name)) this.unavailable.set(name, reason);
  }

  /**
   * The available tools among `names` (exact names, or `<server>__*` for all of an MCP server's tools), in the
   * order asked, plus the MCP tools MCP_SERVERS gives to `agent`; unknown or unavailable names are skipped.
   * Each is wrapped in the tool guard (risk levels, taint, approval, untrusted output as data — tool-guard.ts).
   * The array is live: a tool it names that is registered later (an MCP server coming up) is added to it,
   * so graphs built at start-up, which read their tool list on each call, get it without a rebuild.
   */
  pick(names: readonly string[], agent?: string): StructuredToolInterface[] {
    this.addHostTools();
    const wanted = [...names, ...this.grantedTo(agent)];
    const tools = wanted.flatMap((n) => [...this.tools.values()].filter((t) => allows(n, t.name)).map((t) => guardTool(t)));
    const unique = tools.filter((t, i) => tools.findIndex((u) => u.name === t.name) === i);
    if (wanted.some((n) => n.includes('__'))) this.livePicks.push({ names: wanted, tools: unique });
    return unique;
  }

  /** `<server>__*` for each MCP server, and `a2a__<name>` for each remote A2A agent, whose `agents` name this agent. */
  private grantedTo(agent: string | undefined): string[] {
    if (!agent) return [];
    const servers = Object.entries(this.config?.mcpServers ?? {});
    const remote = Object.entries(this.config?.a2aAgents ?? {});
    return [
      ...servers.filter(([, s]) => s.agents.includes(agent)).map(([name]) => `${name}__*`),
      ...remote.filter(([, a]) => a.agents.includes(agent)).map(([name]) => a2aToolName(name)),
    ];
  }

  list(): ToolInfo[] {
    const available = [...this.tools.values()].map((t) => ({
      name: t.name,
      description: t.description,
      available: true,
      risk: toolRisk(t.name),
      ...(this.servers.has(t.name) ? { server: this.servers.get(t.name) } : {}),
    }));
    const missing = [...this.unavailable].map(([name, reason]) => ({
      name,
      description: '',
      available: false,
      reason,
      risk: toolRisk(name),
    }));
    return [...available, ...missing].sort((a, b) => a.name.localeCompare(b.name));
  }
}
