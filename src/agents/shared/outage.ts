import type { BaseMessage, ToolMessage } from '@langchain/core/messages';

import type { Language } from '../../core/language';
import type { RunError } from '../../database/entities';
import { isModelUnavailable } from '../../llm/model-errors';
import type { RunnableGraph } from '../agent-definition';
import { agentTexts } from './messages';

/**
 * The answer of a turn the model could not finish, in the user's language: what was collected so far (degraded)
 * or, when nothing was, the user-facing outage message.
 */
export function outageAnswer(collected: string | null | undefined, language: Language): { text: string; degraded: boolean } {
  const found = collected?.trim();
  const texts = agentTexts(language);
  if (!found) return { text: texts.modelUnavailable, degraded: false };
  return { text: `${texts.modelUnavailablePartial}\n\n${found}`, degraded: true };
}

export function modelUnavailable(err: unknown): RunError {
  return { code: 'MODEL_UNAVAILABLE', message: (err instanceof Error ? err.message : String(err)).slice(0, 300) };
}

type Values = Record<string, unknown>;

/**
 * A graph whose turn ends like every other agent's when the model fails mid-graph: the model error thrown by
 * a node is caught here and the stream ends with one more `values` chunk, `end(last state, error, cause, config)` — the
 * agent's outage answer over the partial state (decision log, tool history, past steps gathered so far).
 * Other errors and cancellations propagate unchanged.
 */
export function endOnModelOutage<S extends Values>(
  graph: RunnableGraph<S>,
  end: (values: S, error: RunError, cause: unknown, config: { configurable: Record<string, unknown> }) => S,
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
          if (Array.isArray(modes) ? modes.includes('values') : modes === 'values')
            yield wrap(end(last as S, modelUnavailable(err), err, config));
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
