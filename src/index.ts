/**
 * The package's public entry (`agent-orchestrator`): the Nest module a host application imports, the service
 * it injects, and the types of its options, agents and tools. Everything else is internal.
 */
export { ORCHESTRATOR_DATA_SOURCE } from './database/data-source-name';
export {
  AgentOrchestratorFacade as AgentOrchestrator,
  type ChatResult,
  type JobView,
  type TurnInput,
} from './embed/agent-orchestrator.facade';
export { type AgentOrchestratorAsyncOptions, AgentOrchestratorModule } from './embed/agent-orchestrator.module';
export {
  type HostAgent,
  type HostAgentContext,
  OrchestratorAgent,
  type OrchestratorAgentProvider,
  type OrchestratorAgentSpec,
  OrchestratorTool,
  type OrchestratorToolSpec,
} from './embed/host-extensions';
export type { AgentOrchestratorLayout, AgentOrchestratorOptions, DatabaseOption } from './embed/orchestrator-options';
export type { ScopeSpec } from './scope/scope.types';
