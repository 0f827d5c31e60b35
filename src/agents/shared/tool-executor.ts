import { type AIMessage, ToolMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { StructuredToolInterface } from '@langchain/core/tools';

import { runHeld } from '../../core/run-fence';
import { toolLedgerOf } from '../../core/tool-ledger';
import { currentRun } from '../../observability/log-context';
import { phaseSince } from '../../observability/phases';
import { guardStatusOf, withToolCallId } from '../../tools/tool-guard';
import { toolPolicy } from '../../tools/tool-risk';
import type { Source, ToolCallRecord } from '../agent-definition';
import { chargeToolCall, recordToolRuns, refuseOverBudget } from './tool-budget';
import { NO_RETRY, type RetryPolicy, withRetries } from './tool-retry';

const MAX_TOOL_OUTPUT = 8000;

/** Where tool executions are counted (MetricsService implements it). */
export interface ToolMetricsSink {
  recordTool(tool: string, status: 'success' | 'error', ms: number): void;
}

/** How an agent runs its tools: which failures are retried, a time limit per execution, where it is metered. */
export interface ToolRunOptions {
  retry?: RetryPolicy;
  timeoutMs?: number;
  metrics?: ToolMetricsSink;
  /** the run's tool-call budget was already charged for this call (runToolCalls charges a whole batch) */
  charged?: boolean;
}

export type ToolOutcome =
  | { ok: true; output: unknown; text: string; artifact?: unknown; attempts: number }
  | { ok: false; text: string; error: unknown; attempts: number };

/**
 * The one tool executor: runs one call of `tool` (undefined = not offered) under the agent's retry policy and
 * time limit, meters it by tool and status, and never throws for a tool failure — only cancellation propagates.
 * Tools answering `content_and_artifact` (search_knowledge_base) are invoked as tool calls to keep the artifact.
 */
export async function executeTool(
  tool: StructuredToolInterface | undefined,
  call: { name: string; args: Record<string, unknown>; id?: string },
  config: RunnableConfig,
  opts: ToolRunOptions = {},
): Promise<ToolOutcome> {
  if (!tool) return { ok: false, text: `Error: tool "${call.name}" is not available`, error: null, attempts: 0 };
  if (!opts.charged) {
    try {
      chargeToolCall(config); // the run's tool-call budget: a spent budget fails the call without running it
    } catch (err) {
      return { ok: false, text: `Error: not run: ${(err as Error).message}`, error: err, attempts: 0 };
    }
  }
  // a tool that acts on the world runs only while this attempt holds its run: a cut-off worker's late attempt
  // rejects here (RunSuperseded, which stops the run) rather than run it beside the attempt that took over
  if (!toolPolicy(call.name).readOnly) await runHeld(config);
  const started = performance.now();
  // the tool guard (prompt injection, approvals) learns which call it is judging
  const callConfig = withToolCallId(config, call.id ?? `call_${call.name}`);
  const asCall = (tool as { responseFormat?: string }).responseFormat === 'content_and_artifact';
  const input = asCall ? { ...call, id: call.id ?? `call_${call.name}`, type: 'tool_call' as const } : call.args;
  const result = await withRetries(
    () => withTimeout(tool.invoke(input, callConfig), opts.timeoutMs, call.name),
    opts.retry ?? NO_RETRY,
    config.signal,
  );
  const ms = performance.now() - started;
  opts.metrics?.recordTool(call.name, result.ok ? 'success' : 'error', ms);
  currentRun()?.toolCall({
    tool: call.name,
    node: typeof config.metadata?.langgraph_node === 'string' ? config.metadata.langgraph_node : 'unknown',
    ms,
    ok: result.ok,
    error: result.ok ? undefined : String((result.error as Error)?.message ?? result.error),
    output: () => (result.ok ? JSON.stringify(result.value) : ''),
  });
  phaseSince('tool', started);
  if (!result.ok) {
    const message = result.error instanceof Error ? result.error.message : String(result.error);
    return { ok: false, text: `Error: ${message}`, error: result.error, attempts: result.attempts };
  }
  const out = result.value;
  const output = out instanceof ToolMessage ? out.content : out;
  const text = (typeof output === 'string' ? output : JSON.stringify(output)).slice(0, MAX_TOOL_OUTPUT);
  return { ok: true, output, text, artifact: out instanceof ToolMessage ? out.artifact : undefined, attempts: result.attempts };
}

/**
 * Runs an AI message's tool calls in parallel (react, assistant, supervisor sub-agents). A failing tool, an
 * unknown tool or bad arguments become an error ToolMessage for the model (the run goes on). Sources a tool
 * reports as its artifact are returned in `sources`.
 */
export async function runToolCalls(
  ai: AIMessage,
  tools: StructuredToolInterface[],
  config: RunnableConfig,
  opts: ToolRunOptions = {},
): Promise<{ messages: ToolMessage[]; records: ToolCallRecord[]; sources: Source[] }> {
  const refused = refuseOverBudget(ai, config); // all of the message's calls fit the run's budget, or none runs
  if (refused) return { ...refused, sources: [] };
  const byName = new Map(tools.map((t) => [t.name, t]));
  const ledger = toolLedgerOf(config); // a resumed run gets recorded results instead of a second execution
  const results = await Promise.all(
    (ai.tool_calls ?? []).map(async (call) => {
      const id = call.id ?? `call_${call.name}`;
      const t = byName.get(call.name);
      const recorded = call.id ? await ledger?.lookup(call.id) : null;
      let text: string;
      let status: ToolCallRecord['status'];
      let sources: Source[] = [];
      if (recorded) {
        ({ content: text, status } = recorded);
      } else {
        const outcome = t
          ? await executeTool(t, { ...call, id }, config, { ...opts, charged: true })
          : {
              ok: false as const,
              text: `Error: unknown tool "${call.name}". Available tools: ${[...byName.keys()].join(', ')}`,
              error: null,
            };
        text = outcome.text;
        status = outcome.ok ? 'success' : (guardStatusOf(outcome.error) ?? 'error');
        if (outcome.ok) sources = sourcesOf(outcome.artifact);
        // a read-only call is simply run again by a resumed run (tool-risk.ts `readOnly`)
        if (call.id && !toolPolicy(call.name).readOnly) await ledger?.record(call.id, call.name, call.args, { content: text, status });
      }
      return {
        message: new ToolMessage({ content: text, tool_call_id: id, name: call.name, status: status === 'success' ? 'success' : 'error' }),
        record: { name: call.name, args: call.args, status } satisfies ToolCallRecord,
        sources,
      };
    }),
  );
  const records = results.map((r) => r.record);
  recordToolRuns(config, records);
  return { messages: results.map((r) => r.message), records, sources: results.flatMap((r) => r.sources) };
}

/** The sources a tool reported as its artifact (search_knowledge_base), if any. */
export function sourcesOf(artifact: unknown): Source[] {
  if (!Array.isArray(artifact)) return [];
  return artifact.filter((a): a is Source => typeof a === 'object' && a !== null && typeof (a as Source).kind === 'string');
}

/** Sources without repeats (same kind and ref), in first-seen order. */
export function uniqueSources(sources: Source[]): Source[] {
  const seen = new Set<string>();
  return sources.filter((s) => !seen.has(`${s.kind}:${s.ref}`) && seen.add(`${s.kind}:${s.ref}`));
}

function withTimeout<T>(p: Promise<T>, ms: number | undefined, name: string): Promise<T> {
  if (!ms) return p;
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${name} timed out after ${ms} ms`)), ms))),
  ]);
}
