import path from 'node:path';

import { Client } from '@langchain/langgraph-sdk';

import { normalize, outcome, type Side, usePair } from './support/pair';

const config = path.join(__dirname, 'graphs', 'auth', 'langgraph.json');
const input = { messages: [{ type: 'human', content: 'hi' }] };

/** a client of one user (graphs/auth/auth.mts maps the bearer token to the user) */
function clientOf(side: Side, token: string): Client {
  return new Client({ apiUrl: side.url, defaultHeaders: { Authorization: `Bearer ${token}` }, callerOptions: { maxRetries: 0 } });
}

/** an error's status only, where the platform's texts vary by route ("Thread not found", an empty body) */
function statusOf(o: { error: string } | { value: unknown }): string {
  return 'error' in o ? o.error.slice(0, 8) : 'ok';
}

/** langgraph.json's `auth` (graphs/auth): what the clients of two users see, on both servers. */
describe('conformance: custom auth', () => {
  const pair = usePair('auth', { config });

  it('answers a request authenticate refuses with its status, message and headers', async () => {
    const seen = await pair.both(async (side) => {
      const answers = [
        await side.request('POST', '/threads', {}),
        await side.request('GET', '/threads/x', undefined, { Authorization: 'Bearer nobody' }),
      ];
      return answers.map((a) => ({ status: a.status, body: a.body, challenge: a.headers.get('www-authenticate') }));
    });
    expect(seen.ours[0]).toEqual({ status: 401, body: 'who are you?', challenge: 'Bearer realm="conformance"' });
    expect(seen.ours).toEqual(seen.reference);
  });

  it("stores the handler's metadata on create and hides another user's thread from get, search, count, update", async () => {
    const seen = await pair.both(async (side) => {
      const [alice, bob] = [clientOf(side, 'user-a'), clientOf(side, 'user-b')];
      const mark = `m-${side.name}-${Date.now()}`;
      const thread = await alice.threads.create({ metadata: { mark } });
      return {
        metadata: thread.metadata,
        ownGet: (await alice.threads.get(thread.thread_id)).thread_id === thread.thread_id,
        otherGet: await outcome(bob.threads.get(thread.thread_id)),
        ownSearch: (await alice.threads.search({ metadata: { mark } })).length,
        otherSearch: (await bob.threads.search({ metadata: { mark } })).length,
        otherCount: await bob.threads.count({ metadata: { mark } }),
        otherUpdate: statusOf(await outcome(bob.threads.update(thread.thread_id, { metadata: { owner: 'bob' } }))),
        otherState: await outcome(bob.threads.getState(thread.thread_id)),
      };
    });
    expect(seen.ours).toMatchObject({
      metadata: { mark: expect.any(String), owner: 'alice' },
      ownGet: true,
      otherGet: { error: expect.stringContaining('HTTP 404') },
      ownSearch: 1,
      otherSearch: 0,
      otherCount: 0,
    });
    expect(seen.ours.otherUpdate).toBe('HTTP 404');
    const sameShape = (s: typeof seen.ours) => normalize({ ...s, metadata: { ...s.metadata, mark: '<mark>' } });
    expect(sameShape(seen.ours)).toEqual(sameShape(seen.reference));
  });

  it("refuses runs on another user's thread, lets the owner run, and a handler's false is a 403", async () => {
    const seen = await pair.both(async (side) => {
      const [alice, bob] = [clientOf(side, 'user-a'), clientOf(side, 'user-b')];
      const thread = await alice.threads.create();
      const own = await alice.runs.wait(thread.thread_id, 'chat', { input });
      const ownRuns = await alice.runs.list(thread.thread_id);
      return {
        own: (own as { messages: Array<{ content: string }> }).messages.map((m) => m.content),
        otherWait: statusOf(await outcome(bob.runs.wait(thread.thread_id, 'chat', { input }))),
        otherList: await outcome(bob.runs.list(thread.thread_id)),
        otherGetRun: await outcome(bob.runs.get(thread.thread_id, ownRuns[0].run_id)),
        otherDelete: await outcome(bob.threads.delete(thread.thread_id)),
        bobsOwnDelete: await outcome(bob.threads.create().then((t) => bob.threads.delete(t.thread_id))),
        ownDelete: await outcome(alice.threads.delete(thread.thread_id)),
      };
    });
    expect(seen.ours).toMatchObject({
      own: ['hi', 'you said: hi'],
      otherWait: 'HTTP 404',
      otherList: { error: expect.stringContaining('HTTP 404') },
      otherGetRun: { error: expect.stringContaining('HTTP 404') },
      bobsOwnDelete: { error: expect.stringContaining('HTTP 403') },
      ownDelete: { value: undefined },
    });
    expect(normalize(seen.ours)).toEqual(normalize(seen.reference));
  });

  it("keeps each user's store items to their namespace: hidden, refused, filtered", async () => {
    const seen = await pair.both(async (side) => {
      const [alice, bob] = [clientOf(side, 'user-a'), clientOf(side, 'user-b')];
      const key = `k-${side.name}-${Date.now()}`;
      await alice.store.putItem(['alice', 'notes'], key, { text: 'mine' });
      return {
        own: (await alice.store.getItem(['alice', 'notes'], key))?.value,
        otherGet: await outcome(bob.store.getItem(['alice', 'notes'], key)),
        otherPut: await outcome(bob.store.putItem(['alice', 'notes'], key, { text: 'theirs' })),
        otherDelete: await outcome(bob.store.deleteItem(['alice', 'notes'], key)),
        ownSearch: (await alice.store.searchItems(['alice'])).items.filter((i) => i.key === key).length,
        otherSearch: (await bob.store.searchItems([])).items.filter((i) => i.key === key).length,
        otherNamespaces: (await bob.store.listNamespaces()).namespaces,
      };
    });
    expect(seen.ours).toMatchObject({
      own: { text: 'mine' },
      otherGet: { error: expect.stringContaining('HTTP 404') },
      otherPut: { error: expect.stringContaining('HTTP 404') },
      ownSearch: 1,
      otherSearch: 0,
      otherNamespaces: [],
    });
    expect(seen.ours).toEqual(seen.reference);
  });
  it("answers a copy of another user's thread with 409 and a join stream of their run with one error event", async () => {
    const seen = await pair.both(async (side) => {
      const [alice, bob] = [clientOf(side, 'user-a'), clientOf(side, 'user-b')];
      const thread = await alice.threads.create();
      const run = await alice.runs.create(thread.thread_id, 'chat', { input });
      const otherJoin: Array<{ event: string; data: unknown }> = [];
      for await (const chunk of bob.runs.joinStream(thread.thread_id, run.run_id)) otherJoin.push(chunk);
      await alice.runs.join(thread.thread_id, run.run_id);
      const ownCopy = await alice.threads.copy(thread.thread_id);
      return {
        otherCopy: await outcome(bob.threads.copy(thread.thread_id)),
        otherCopyOfNothing: await outcome(bob.threads.copy('00000000-0000-4000-8000-000000000000')),
        ownCopy: { owner: ownCopy.metadata?.owner, newId: ownCopy.thread_id !== thread.thread_id },
        otherJoin,
      };
    });
    expect(seen.ours).toMatchObject({
      otherCopy: { error: expect.stringContaining('HTTP 409') },
      ownCopy: { owner: 'alice', newId: true },
      otherJoin: [{ event: 'error', data: { message: expect.stringContaining('404') } }],
    });
    expect(seen.ours.otherJoin).toHaveLength(1);
    expect(seen.ours).toEqual(seen.reference);
  });
});
