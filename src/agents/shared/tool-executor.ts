import { type AIMessage, ToolMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { StructuredToolInterface } from '@langchain/core/tools';

import type { Source, ToolCallRecord } from '../agent-definition';

const MAX_TOOL_OUTPUT = 8000;

/**
 * Runs an AI message's tool calls in parallel. A failing tool, an unknown tool or bad arguments become an
 * error ToolMessage for the model (the run goes on); only cancellation propagates. Tools that return
 * `content_and_artifact` with sources (search_knowledge_base) report them in `sources`.
 */
export async function runToolCalls(
  ai: AIMessage,
  tools: StructuredToolInterface[],
  config: RunnableConfig,
): Promise<{ messages: ToolMessage[]; records: ToolCallRecord[]; sources: Source[] }> {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const results = await Promise.all(
    (ai.tool_calls ?? []).map(async (call) => {
      const id = call.id ?? `call_${call.name}`;
      const t = byName.get(call.name);
      let content: string;
      let status: 'success' | 'error' = 'success';
      let sources: Source[] = [];
      if (!t) {
        content = `Error: unknown tool "${call.name}". Available tools: ${[...byName.keys()].join(', ')}`;
        status = 'error';
      } else {
        try {
          const out: unknown = await t.invoke({ ...call, id, type: 'tool_call' }, config);
          const result = out instanceof ToolMessage ? out.content : out;
          content = (typeof result === 'string' ? result : JSON.stringify(result)).slice(0, MAX_TOOL_OUTPUT);
          sources = out instanceof ToolMessage ? sourcesOf(out.artifact) : [];
        } catch (err) {
          if (config.signal?.aborted) throw err;
          content = `Error: ${(err as Error).message}`;
          status = 'error';
        }
      }
      return {
        message: new ToolMessage({ content, tool_call_id: id, name: call.name, status }),
        record: { name: call.name, args: call.args, status } satisfies ToolCallRecord,
        sources,
      };
    }),
  );
  return { messages: results.map((r) => r.message), records: results.map((r) => r.record), sources: results.flatMap((r) => r.sources) };
}

function sourcesOf(artifact: unknown): Source[] {
  if (!Array.isArray(artifact)) return [];
  return artifact.filter((a): a is Source => typeof a === 'object' && a !== null && typeof (a as Source).kind === 'string');
}

/** Sources without repeats (same kind and ref), in first-seen order. */
export function uniqueSources(sources: Source[]): Source[] {
  const seen = new Set<string>();
  return sources.filter((s) => !seen.has(`${s.kind}:${s.ref}`) && seen.add(`${s.kind}:${s.ref}`));
}
