import { outcome, usePair } from './support/pair';

/** What a client sees of a run whose graph throws its own error, and of request headers reaching a run. */
describe('conformance: graph errors and request headers', () => {
  const pair = usePair('graph_errors');

  it("streams a graph's own error with its name and message, as `error` last; join-stream, wait and the run agree", async () => {
    const seen = await pair.both(async ({ client }) => {
      const thread = await client.threads.create();
      const events: Array<{ event: string; data: unknown }> = [];
      for await (const e of client.runs.stream(thread.thread_id, 'failing', { input: { messages: [] }, streamMode: ['values'] })) {
        events.push({ event: e.event, data: e.data });
      }
      const run = await client.runs.create(thread.thread_id, 'failing', { input: { messages: [] } });
      const joined: Array<{ event: string; data: unknown }> = [];
      for await (const e of client.runs.joinStream(thread.thread_id, run.run_id)) joined.push({ event: e.event, data: e.data });
      const status = (await client.runs.get(thread.thread_id, run.run_id)).status;
      const wait = await outcome(client.runs.wait(null, 'failing', { input: { messages: [] } }));
      return { last: events.at(-1), joined: joined.at(-1), status, wait };
    });
    expect(seen.ours.last).toEqual({ event: 'error', data: { error: 'QuotaError', message: 'quota of 3 reports reached' } });
    expect(seen.ours).toEqual(seen.reference);
  });

  it("copies x-* headers (not credentials) and user-agent into the run's configurable, over the body's", async () => {
    const seen = await pair.both(async (side) => {
      const answer = await side.request(
        'POST',
        '/runs/wait',
        { assistant_id: 'headers', input: {}, config: { configurable: { locale: 'de', 'x-my-tier': 'body' } } },
        { 'x-my-tier': 'header', 'x-my-trace': 't-1', 'x-api-key': 'never-copied' },
      );
      return { status: answer.status, body: answer.body };
    });
    expect(seen.ours).toEqual({ status: 200, body: { seen: { locale: 'de', 'x-my-tier': 'header', 'x-my-trace': 't-1' } } });
    expect(seen.ours).toEqual(seen.reference);
  });
});
