import { Injectable } from '@nestjs/common';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { calculatorTool } from './basic/calculator.tool';
import { datetimeTool } from './basic/datetime.tool';

export interface ToolInfo {
  name: string;
  description: string;
  available: boolean;
  reason?: string;
}

/** Every tool the service knows, and which of them an agent may use (per-agent allow-lists). */
@Injectable()
export class ToolRegistry {
  private readonly tools = new Map<string, StructuredToolInterface>();
  private readonly unavailable = new Map<string, string>();

  constructor() {
    this.register(calculatorTool);
    this.register(datetimeTool);
  }

  register(t: StructuredToolInterface): void {
    this.tools.set(t.name, t);
    this.unavailable.delete(t.name);
  }

  markUnavailable(name: string, reason: string): void {
    if (!this.tools.has(name)) this.unavailable.set(name, reason);
  }

  /** The available tools among `names`, in the order asked; unknown or unavailable names are skipped. */
  pick(names: readonly string[]): StructuredToolInterface[] {
    return names.flatMap((n) => {
      const t = this.tools.get(n);
      return t ? [t] : [];
    });
  }

  list(): ToolInfo[] {
    const available = [...this.tools.values()].map((t) => ({ name: t.name, description: t.description, available: true }));
    const missing = [...this.unavailable].map(([name, reason]) => ({ name, description: '', available: false, reason }));
    return [...available, ...missing].sort((a, b) => a.name.localeCompare(b.name));
  }
}
