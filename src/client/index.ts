/** `agent-orchestrator/client`: the typed REST v1 client. Imports nothing from the server (only openapi-fetch). */
export type {
  AgentClient,
  AgentClientOptions,
  AgentInfo,
  ChatRequest,
  ChatResult,
  ChatStreamEvent,
  Contract,
  ContractSummary,
  CreateContract,
  CreateDocument,
  Document,
  Job,
  JobAccepted,
  JobEvent,
  JobStatus,
  RunTrace,
  Session,
  SubmitOptions,
  ToolInfo,
  WaitOptions,
} from './client';
export { createAgentClient } from './client';
export { AgentClientError } from './errors';
export type { RetryOptions } from './retry';
export type { components, paths } from './schema';
export type { SseEvent } from './sse';
