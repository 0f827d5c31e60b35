import { normalize, usePair } from './support/pair';

/**
 * Thread retention beside the reference server (`@langchain/langgraph-api`, the in-memory dev server): it accepts a
 * thread's `ttl` and ignores it, and has no `POST /threads/prune`. What a client sees of a thread with a TTL is the
 * same on both (the TTL is not shown); prune is ours alone (docs/retention.md).
 */
describe('conformance: thread TTL and prune', () => {
  const pair = usePair('retention');

  it('a thread created and patched with a ttl looks the same on both servers', async () => {
    const seen = await pair.both(async (side) => {
      const thread = await side.client.threads.create({ graphId: 'chat', metadata: { kind: 'ttl' }, ttl: 60 });
      const patched = await side.client.threads.update(thread.thread_id, { metadata: { more: true }, ttl: 30 });
      const byObject = await side.request('POST', '/threads', { ttl: { strategy: 'delete', ttl: 5 } });
      return { thread, patched, byObject: byObject.status };
    });
    // `state_updated_at` is ours (the Agent Server's field), not the in-memory reference's: not a TTL matter
    const shape = (v: unknown) => normalize(v, ['config', 'values', 'interrupts', 'state_updated_at']);
    expect(shape(seen.ours.thread)).toEqual(shape(seen.reference.thread));
    expect(shape(seen.ours.patched)).toEqual(shape(seen.reference.patched));
    expect(seen.ours.thread).not.toHaveProperty('ttl');
    expect(seen.ours.byObject).toBe(200);
    expect(seen.reference.byObject).toBe(200);
  });

  it('POST /threads/prune: ours prunes and counts; the reference has no such route', async () => {
    const seen = await pair.both(async (side) => {
      const thread = await side.client.threads.create({ graphId: 'chat' });
      const pruned = await side.request('POST', '/threads/prune', { thread_ids: [thread.thread_id], strategy: 'delete' });
      const after = await side.request('GET', `/threads/${thread.thread_id}`);
      return { status: pruned.status, body: pruned.body, after: after.status };
    });
    expect(seen.ours).toEqual({ status: 200, body: { pruned_count: 1 }, after: 404 });
    expect(seen.reference.status).toBeGreaterThanOrEqual(404);
    expect(seen.reference.after).toBe(200);
  });
});
