import { randomUUID } from 'node:crypto';

import { outcome, type Side, usePair } from './support/pair';

/** Errors as a LangGraph Platform client sees them: status, content type, body, and the SDK's message. */
describe('conformance: errors', () => {
  const pair = usePair('errors');

  /** what both sides must agree on; our machine-readable code is beside it, in `X-Error-Code` */
  const seenOf = async (side: Side, method: string, route: string, body?: unknown) => {
    const a = await side.request(method, route, body);
    return { status: a.status, text: a.contentType.startsWith('text/plain'), body: a.body, code: a.headers.get('x-error-code') };
  };
  const withoutCode = ({ code: _code, ...rest }: { code: string | null }) => rest;

  it('answers unknown assistants and threads with the reference text, our code in X-Error-Code', async () => {
    const missing = randomUUID();
    const seen = await pair.both(async (side) => [
      await seenOf(side, 'GET', `/assistants/${missing}`),
      await seenOf(side, 'PATCH', `/assistants/${missing}`, { metadata: {} }),
      await seenOf(side, 'DELETE', `/assistants/${missing}`),
      await seenOf(side, 'GET', `/threads/${missing}`),
      await seenOf(side, 'POST', '/runs/wait', { assistant_id: 'no-such-graph', input: {} }),
      await seenOf(side, 'GET', `/threads/${(await side.client.threads.create()).thread_id}/runs/${missing}`),
    ]);
    expect(seen.ours.map((s) => s.code)).toEqual([
      'ASSISTANT_NOT_FOUND',
      'ASSISTANT_NOT_FOUND',
      'ASSISTANT_NOT_FOUND',
      'THREAD_NOT_FOUND',
      'ASSISTANT_NOT_FOUND',
      'RUN_NOT_FOUND',
    ]);
    expect(seen.ours.map(withoutCode)).toEqual(seen.reference.map(withoutCode));
  });

  it('gives the SDK the same messages', async () => {
    const seen = await pair.both(async ({ client }) => ({
      get: await outcome(client.assistants.get(randomUUID())),
      wait: await outcome(client.runs.wait(null, 'no-such-graph', { input: {} })),
    }));
    expect(seen.ours).toEqual({
      get: { error: 'HTTP 404: Assistant not found' },
      wait: { error: expect.stringContaining('No assistant found for "no-such-graph"') },
    });
    expect(seen.ours).toEqual(seen.reference);
  });

  it('names a recursion-limit failure GraphRecursionError, in a wait and in a stream', async () => {
    const seen = await pair.both(async ({ client }) => {
      const config = { recursion_limit: 1 };
      const input = { messages: [{ type: 'human', content: 'hi' }] };
      const wait = await outcome(client.runs.wait(null, 'chat', { input, config }));
      const events: Array<{ event: string; data: unknown }> = [];
      for await (const e of client.runs.stream(null, 'chat', { input, config })) events.push({ event: e.event, data: e.data });
      const last = events.at(-1) as { event: string; data: { error: string } };
      return { wait, last: { event: last.event, error: last.data.error } };
    });
    expect(seen.ours).toEqual({
      wait: { error: expect.stringMatching(/^Error: \{"error":"GraphRecursionError","message":"Recursion limit of 1 reached/) },
      last: { event: 'error', error: 'GraphRecursionError' },
    });
    expect(seen.ours).toEqual(seen.reference);
  });
});
