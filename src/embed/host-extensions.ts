import { SetMetadata } from '@nestjs/common';
import type { ZodType } from 'zod';

import type { OrchestratorAgentSpec } from '../agents/host-agent';

export type { HostAgent, HostAgentContext, OrchestratorAgentProvider, OrchestratorAgentSpec } from '../agents/host-agent';

export interface OrchestratorToolSpec {
  name: string;
  description: string;
  /** a zod object schema of the method's single argument */
  schema: ZodType;
}

export const ORCHESTRATOR_AGENT = Symbol('agent-orchestrator:agent');
export const ORCHESTRATOR_TOOL = Symbol('agent-orchestrator:tool');

/** Registers a provider as an agent (discovered at start-up; the provider gets its dependencies by injection). */
export const OrchestratorAgent = (spec: OrchestratorAgentSpec): ClassDecorator => SetMetadata(ORCHESTRATOR_AGENT, spec);

/** Registers a provider method as a tool: called with the parsed arguments; its (awaited) return value is the tool output. */
export const OrchestratorTool = (spec: OrchestratorToolSpec): MethodDecorator => SetMetadata(ORCHESTRATOR_TOOL, spec);
