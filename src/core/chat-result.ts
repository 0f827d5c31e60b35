import type { RunError, Source, ToolCallRecord } from './run-types';

/** The answer to a turn, as returned by `POST /v1/chat`, stored on the run and read back by job or session. */
export interface ChatResult {
  response: string;
  session_id: string;
  run_id: string;
  agent: string;
  tools_used: string[];
  tool_calls: ToolCallRecord[];
  sources: Source[];
  execution_time_ms: number;
  llm_calls: number;
  error: RunError | null;
  metadata: Record<string, unknown>;
}
