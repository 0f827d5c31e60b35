import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { Inject, Injectable } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';

import { type HostAgents } from '../agents/host-agent';
import { type HostTools } from '../tools/host-tools';
import {
  type HostAgent,
  ORCHESTRATOR_AGENT,
  ORCHESTRATOR_TOOL,
  type OrchestratorAgentProvider,
  type OrchestratorAgentSpec,
  type OrchestratorToolSpec,
} from './host-extensions';

/** The agents and tools a host gave in the module options. */
export interface HostExtensions {
  agents: HostAgent[];
  tools: StructuredToolInterface[];
}

export const HOST_EXTENSIONS = Symbol('HOST_EXTENSIONS');

/**
 * A host's agents and tools: those of the module options, then the providers decorated with
 * `@OrchestratorAgent` and the methods decorated with `@OrchestratorTool` (found with Nest's DiscoveryService
 * once every provider exists). The agent and tool registries read them at start-up.
 */
@Injectable()
export class HostCatalog implements HostAgents, HostTools {
  constructor(
    @Inject(HOST_EXTENSIONS) private readonly given: HostExtensions,
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  agents(): HostAgent[] {
    const decorated = this.instances().flatMap((instance) => {
      const spec = Reflect.getMetadata(ORCHESTRATOR_AGENT, instance.constructor) as OrchestratorAgentSpec | undefined;
      if (!spec) return [];
      const provider = instance as OrchestratorAgentProvider;
      if (typeof provider.graph !== 'function') {
        throw new Error(`@OrchestratorAgent "${spec.name}" (${instance.constructor.name}) has no graph(ctx) method`);
      }
      return [{ ...spec, graph: provider.graph.bind(provider) }];
    });
    return unique([...this.given.agents, ...decorated], 'agent');
  }

  tools(): StructuredToolInterface[] {
    const decorated = this.instances().flatMap((instance) => {
      const proto = Object.getPrototypeOf(instance) as Record<string, unknown>;
      return this.scanner.getAllMethodNames(proto).flatMap((method) => {
        const fn = proto[method] as (args: unknown) => unknown;
        const spec = Reflect.getMetadata(ORCHESTRATOR_TOOL, fn) as OrchestratorToolSpec | undefined;
        if (!spec) return [];
        const call = async (args: unknown) => {
          const out = await fn.call(instance, args);
          return typeof out === 'string' ? out : JSON.stringify(out);
        };
        return [tool(call, { name: spec.name, description: spec.description, schema: spec.schema as never }) as StructuredToolInterface];
      });
    });
    return unique([...this.given.tools, ...decorated], 'tool');
  }

  private instances(): object[] {
    const all = this.discovery.getProviders().map((w) => w.instance as unknown);
    return [...new Set(all.filter((i): i is object => typeof i === 'object' && i !== null && !!i.constructor))];
  }
}

function unique<T extends { name: string }>(items: T[], what: string): T[] {
  const seen = new Set<string>();
  for (const { name } of items) {
    if (seen.has(name)) throw new Error(`Invalid configuration: two host ${what}s are named "${name}"`);
    seen.add(name);
  }
  return items;
}
