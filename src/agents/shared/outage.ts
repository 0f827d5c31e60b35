import type { BaseMessage, ToolMessage } from '@langchain/core/messages';

import type { RunError } from '../../database/entities';
import { isModelUnavailable } from '../../llm/model-errors';
import type { RunnableGraph } from '../agent-definition';

export const MODEL_UNAVAILABLE_TEXT =
  '언어 모델에 연결할 수 없어 답변하지 못했습니다. 잠시 후 다시 시도해 주세요. (The language model could not be reached; please try again later.)';

/**
 * The answer of a turn the model could not finish: what was collected so far (degraded) or, when nothing
 * was, the user-facing outage message.
 */
export function outageAnswer(collected: string | null | undefined): { text: string; degraded: boolean } {
  const found = collected?.trim();
  if (!found) return { text: MODEL_UNAVAILABLE_TEXT, degraded: false };
  return {
    text: `언어 모델에 연결할 수 없어 지금까지 찾은 내용만 전합니다. (The language model could not be reached; this is what was found so far.)\n\n${found}`,
    degraded: true,
  };
}

export function modelUnavailable(err: unknown): RunError {
  return { code: 'MODEL_UNAVAILABLE', message: (err instanceof Error ? err.message : String(err)).slice(0, 300) };
}

type Values = Record<string, unknown>;

/**
 * A graph whose turn ends like every other agent's when the model fails mid-graph: the model error thrown by
 * a node is caught here and the stream ends with one more `values` chunk, `end(last state, error)` — the
 * agent's outage answer over the partial state (decision log, tool history, past steps gathered so far).
 * Other errors and cancellations propagate unchanged.
 */
export function endOnModelOutage<S extends Values>(
  graph: RunnableGraph<S>,
  end: (values: S, error: RunError, cause: unknown) => S,
): RunnableGraph<S> {
  return {
    compiled: graph.compiled ?? graph,
    getState: (config) => graph.getState(config),
    async stream(input, options) {
      const inner = await graph.stream(input, options);
      const modes = options.streamMode;
      const valuesOf = (chunk: unknown): Values | undefined => {
        if (Array.isArray(modes)) return Array.isArray(chunk) && chunk[0] === 'values' ? (chunk[1] as Values) : undefined;
        return modes === 'values' ? (chunk as Values) : undefined;
      };
      const wrap = (values: Values): unknown => (Array.isArray(modes) ? ['values', values] : values);
      const config = { configurable: (options.configurable ?? {}) as Record<string, unknown> };
      const signal = options.signal as AbortSignal | undefined;
      return (async function* () {
        let last: Values | undefined;
        try {
          for await (const chunk of inner) {
            last = valuesOf(chunk) ?? last;
            yield chunk;
          }
        } catch (err) {
          if (signal?.aborted || !isModelUnavailable(err)) throw err;
          last ??= (await graph.getState(config)).values as Values;
          if (Array.isArray(modes) ? modes.includes('values') : modes === 'values') yield wrap(end(last as S, modelUnavailable(err), err));
        }
      })();
    },
  };
}

/** This turn's tool results (the messages after the last user message), as `name: output` lines. */
export function toolResultsOfTurn(messages: BaseMessage[]): string {
  const start = messages.map((m) => m.getType()).lastIndexOf('human');
  return messages
    .slice(start + 1)
    .filter((m) => m.getType() === 'tool')
    .map((m) => `${(m as ToolMessage).name ?? 'tool'}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`)
    .join('\n');
}
