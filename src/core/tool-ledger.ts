import type { ToolCallRecord } from './run-types';

/** Where a run's ledger travels: `config.configurable[TOOL_LEDGER_KEY]` (put there by the orchestrator). */
export const TOOL_LEDGER_KEY = 'tool_ledger';

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
  const l = config?.configurable?.[TOOL_LEDGER_KEY] as Partial<ToolLedger> | undefined;
  return typeof l?.lookup === 'function' && typeof l.record === 'function' ? (l as ToolLedger) : undefined;
}
