import { runContextOf } from './run-context';
import type { ToolCallRecord } from './run-types';

declare module './run-context' {
  interface RunContext {
    /** the results of the run's tool calls, so a resumed run does not run a tool twice */
    ledger?: ToolLedger;
  }
}

export interface RecordedToolCall {
  content: string;
  status: ToolCallRecord['status'];
}

/**
 * The results of a run's tool calls, keyed by `tool_call_id`. When a crashed run resumes and its tool node runs
 * again, a recorded call answers from here instead of running the tool a second time.
 */
export interface ToolLedger {
  lookup(toolCallId: string): Promise<RecordedToolCall | null>;
  record(toolCallId: string, name: string, args: unknown, result: RecordedToolCall): Promise<void>;
}

export function toolLedgerOf(config: { configurable?: Record<string, unknown> } | undefined): ToolLedger | undefined {
  const l = runContextOf(config)?.ledger;
  return typeof l?.lookup === 'function' && typeof l.record === 'function' ? l : undefined;
}
