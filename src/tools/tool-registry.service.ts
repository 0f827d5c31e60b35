import type { StructuredToolInterface } from '@langchain/core/tools';
import { Inject, Injectable, OnModuleInit, Optional } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { DocumentsService } from '../knowledge/documents/documents.service';
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
}

/** Every tool the service knows, and which of them an agent may use (per-agent allow-lists). */
@Injectable()
export class ToolRegistry implements OnModuleInit {
  private readonly tools = new Map<string, StructuredToolInterface>();
  private readonly unavailable = new Map<string, string>();
  private hostToolsAdded = false;

  constructor(
    @Optional() config?: AppConfig,
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

  register(t: StructuredToolInterface): void {
    this.tools.set(t.name, t);
    this.unavailable.delete(t.name);
  }

  markUnavailable(name: string, reason: string): void {
    if (!this.tools.has(name)) this.unavailable.set(name, reason);
  }

  /**
   * The available tools among `names`, in the order asked; unknown or unavailable names are skipped. Each is
   * wrapped in the tool guard (risk levels, taint, approval, untrusted output as data — tool-guard.ts).
   */
  pick(names: readonly string[]): StructuredToolInterface[] {
    this.addHostTools();
    return names.flatMap((n) => {
      const t = this.tools.get(n);
      return t ? [guardTool(t)] : [];
    });
  }

  list(): ToolInfo[] {
    const available = [...this.tools.values()].map((t) => ({
      name: t.name,
      description: t.description,
      available: true,
      risk: toolRisk(t.name),
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
