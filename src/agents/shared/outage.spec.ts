import { ModelUnavailableError } from '../../llm/model-errors';
import type { RunnableGraph } from '../agent-definition';
import { endOnModelOutage, outageAnswer } from './outage';

type S = { n: number; response?: string; error?: unknown };

/** A graph that streams `values` chunks, then fails with `failure` (if any). */
function graphThatFails(failure?: Error): RunnableGraph<S> {
  return {
    getState: async () => ({ values: { n: -1 }, next: [] }),
    stream: async () =>
      (async function* () {
        yield ['values', { n: 1 }];
        yield ['updates', { node: {} }];
        yield ['values', { n: 2 }];
        if (failure) throw failure;
      })(),
  };
}

const drain = async (graph: RunnableGraph<S>, options: Record<string, unknown> = { streamMode: ['updates', 'values'] }) => {
  const chunks: unknown[] = [];
  for await (const c of await graph.stream({}, options)) chunks.push(c);
  return chunks;
};

describe('endOnModelOutage', () => {
  const end = (s: S, error: unknown) => ({ ...s, error, response: 'ended' });

  it('ends the stream with the agent ending over the last state when the model fails', async () => {
    const chunks = await drain(endOnModelOutage(graphThatFails(new ModelUnavailableError('down')), end));
    expect(chunks.at(-1)).toEqual(['values', { n: 2, response: 'ended', error: { code: 'MODEL_UNAVAILABLE', message: 'down' } }]);
  });

  it('lets other errors and cancellations through', async () => {
    await expect(drain(endOnModelOutage(graphThatFails(new TypeError('bug')), end))).rejects.toThrow('bug');
    const controller = new AbortController();
    controller.abort();
    const aborted = endOnModelOutage(graphThatFails(new ModelUnavailableError('down')), end);
    await expect(drain(aborted, { streamMode: ['values'], signal: controller.signal })).rejects.toThrow('down');
  });

  it('passes a finished stream through unchanged', async () => {
    expect(await drain(endOnModelOutage(graphThatFails(), end))).toHaveLength(3);
  });

  it("answers with what was collected, or the outage message, in the user's language only", () => {
    expect(outageAnswer('calculator: 42', 'ko')).toEqual({
      text: expect.stringMatching(/지금까지 찾은 내용[\s\S]*calculator: 42$/),
      degraded: true,
    });
    expect(outageAnswer('  ', 'ko')).toEqual({ text: expect.stringMatching(/^언어 모델에 연결할 수 없어[^a-zA-Z]*$/), degraded: false });
    expect(outageAnswer('  ', 'en')).toEqual({
      text: 'The language model could not be reached, so I could not answer. Please try again later.',
      degraded: false,
    });
    expect(outageAnswer('calculator: 42', 'en').text).toMatch(
      /^The language model could not be reached; this is what was found so far\.\n\ncalculator: 42$/,
    );
    expect(outageAnswer('  ', 'ja').text).toMatch(/^The language model/); // no Japanese table: English
  });
});
