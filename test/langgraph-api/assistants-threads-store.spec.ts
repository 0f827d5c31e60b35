import { Client } from '@langchain/langgraph-sdk';
import { Client as Pg } from 'pg';

import { systemAssistantId } from '../../src/langgraph-api/assistants/assistants.service';
import { createTestDatabase, type TestDatabase } from '../support/infra';
import { http, type RunningApp, startApp } from '../support/test-app';

const T1 = 'tenant-one-key-0123456789';
const T2 = 'tenant-two-key-0123456789';
const BUILT_IN = ['react', 'assistant', 'supervisor', 'plan-execute', 'contract-qa'];

/** The HTTP status an SDK call failed with (the SDK throws on non-2xx). */
async function statusOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (e) {
    return (e as { status?: number }).status ?? -1;
  }
  return 200;
}

/** The LangGraph Server API driven by the official SDK Client: assistants, threads, state, store, tenancy. */
describe('LangGraph API: assistants, threads, store (official SDK)', () => {
  let db: TestDatabase;
  let svc: RunningApp;
  let c1: Client;
  let c2: Client;

  beforeAll(async () => {
    db = await createTestDatabase('lgapi');
    // no model: the react agent answers arithmetic by its rule fast path
    svc = await startApp({ DATABASE_URL: db.url, API_KEYS: `t1:${T1},t2:${T2}`, DEFAULT_AGENT: 'react' });
    c1 = new Client({ apiUrl: svc.url, apiKey: T1, callerOptions: { maxRetries: 0 } });
    c2 = new Client({ apiUrl: svc.url, apiKey: T2, callerOptions: { maxRetries: 0 } });
  });

  afterAll(async () => {
    await svc?.close();
    await db?.drop();
  });

  const v1Chat = (key: string, body: Record<string, unknown>) =>
    fetch(`${svc.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(body),
    });

  describe('assistants', () => {
    it('lists the built-in graphs as system assistants', async () => {
      const all = await c1.assistants.search({ limit: 100 });
      const system = all.filter((a) => a.metadata?.created_by === 'system');
      expect(system.map((a) => a.graph_id).sort()).toEqual([...BUILT_IN].sort());
      expect(system.map((a) => a.assistant_id).sort()).toEqual(BUILT_IN.map(systemAssistantId).sort());
      const react = await c1.assistants.get('react');
      expect(react).toMatchObject({
        assistant_id: systemAssistantId('react'),
        graph_id: 'react',
        version: 1,
        metadata: { created_by: 'system' },
      });
      expect(await c1.assistants.search({ graphId: 'react' })).toEqual([
        expect.objectContaining({ assistant_id: systemAssistantId('react') }),
      ]);
      expect(await c1.assistants.count({ metadata: { created_by: 'system' } })).toBe(BUILT_IN.length);
    });

    it('creates, patches (new version), lists versions, sets latest, searches and deletes', async () => {
      const a = await c1.assistants.create({ graphId: 'react', name: 'Calc', metadata: { team: 'x' }, config: { configurable: { k: 1 } } });
      expect(a).toMatchObject({ graph_id: 'react', name: 'Calc', version: 1, metadata: { team: 'x' }, config: { configurable: { k: 1 } } });
      expect(typeof a.assistant_id).toBe('string');
      expect(typeof a.created_at).toBe('string');

      const p = await c1.assistants.update(a.assistant_id, { name: 'Calc 2', metadata: { stage: 'beta' } });
      expect(p).toMatchObject({ version: 2, name: 'Calc 2', metadata: { team: 'x', stage: 'beta' } });
      const versions = await c1.assistants.getVersions(a.assistant_id);
      expect(versions.map((v) => v.version)).toEqual([2, 1]);
      const back = await c1.assistants.setLatest(a.assistant_id, 1);
      expect(back).toMatchObject({ version: 1, name: 'Calc' });
      expect(await statusOf(c1.assistants.setLatest(a.assistant_id, 9))).toBe(404);

      const found = await c1.assistants.search({ metadata: { team: 'x' } });
      expect(found.map((x) => x.assistant_id)).toEqual([a.assistant_id]);
      expect(await c1.assistants.search({ name: 'calc' })).toHaveLength(1);
      const page = await c1.assistants.search({ limit: 2, offset: 0, sortBy: 'assistant_id', sortOrder: 'asc', includePagination: true });
      expect(page.assistants).toHaveLength(2);
      expect(page.next).toBe('2');

      await c1.assistants.delete(a.assistant_id);
      expect(await statusOf(c1.assistants.get(a.assistant_id))).toBe(404);
    });

    it('answers 409 for an existing id (if_exists raise), the existing one for do_nothing, 404 for an unknown graph, 422 for a bad body', async () => {
      await c1.assistants.create({ graphId: 'react', assistantId: 'mine' });
      expect(await statusOf(c1.assistants.create({ graphId: 'react', assistantId: 'mine' }))).toBe(409);
      const again = await c1.assistants.create({ graphId: 'assistant', assistantId: 'mine', ifExists: 'do_nothing' });
      expect(again.graph_id).toBe('react');
      expect(await statusOf(c1.assistants.create({ graphId: 'react', assistantId: 'react' }))).toBe(409);
      expect(await statusOf(c1.assistants.create({ graphId: 'no-such-graph' }))).toBe(404);
      expect(await statusOf(c1.assistants.update('react', { name: 'x' }))).toBe(409);
      expect(await statusOf(c1.assistants.delete('react'))).toBe(409);
      const bad = await http(svc.url, 'POST', '/assistants/search', { limit: 'many' });
      expect(bad.status).toBe(401); // no key: refused before validation
      const res = await fetch(`${svc.url}/assistants`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': T1 },
        body: JSON.stringify({ graph_id: 42 }),
      });
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({ detail: expect.stringContaining('graph_id'), error: { code: 'VALIDATION_FAILED' } });
    });

    it('serves the graph, its schemas and subgraphs', async () => {
      const g = await c1.assistants.getGraph('react');
      const ids = g.nodes.map((n) => String(n.id));
      expect(ids).toEqual(expect.arrayContaining(['__start__', '__end__']));
      expect(g.edges.length).toBeGreaterThan(0);
      expect(g.edges[0]).toEqual(expect.objectContaining({ source: expect.any(String), target: expect.any(String) }));
      const x = await c1.assistants.getGraph('supervisor', { xray: true });
      expect(x.nodes.length).toBeGreaterThan(0);
      const s = await c1.assistants.getSchemas('react');
      expect(s.graph_id).toBe('react');
      expect(Object.keys((s.state_schema as { properties: object }).properties)).toEqual(expect.arrayContaining(['messages', 'response']));
      expect(await c1.assistants.getSubgraphs('react')).toEqual({});
    });
  });

  describe('threads', () => {
    it('a create refused over its supersteps (no graph to apply them through) leaves no thread behind', async () => {
      const threadId = '7d7b1c5e-0a4e-4c1b-9d7f-3a0f5e2b9c11';
      const supersteps = [{ updates: [{ values: { messages: [{ role: 'ai', content: 'planted' }] }, asNode: 'agent' }] }];
      expect(await statusOf(c1.threads.create({ threadId, supersteps }))).toBe(400);
      expect(await statusOf(c1.threads.get(threadId))).toBe(404);
    });

    it('creates (client id, if_exists), gets, patches metadata, searches by metadata and status, counts, deletes', async () => {
      const t = await c1.threads.create({ threadId: 'conv-1', metadata: { user: 'u1' } });
      expect(t).toMatchObject({ thread_id: 'conv-1', status: 'idle', metadata: { user: 'u1' }, values: {} });
      expect(await statusOf(c1.threads.create({ threadId: 'conv-1' }))).toBe(409);
      const same = await c1.threads.create({ threadId: 'conv-1', ifExists: 'do_nothing' });
      expect(same.thread_id).toBe('conv-1');
      const fresh = await c1.threads.create();
      expect(fresh.thread_id).toMatch(/^[0-9a-f-]{36}$/);

      const patched = await c1.threads.update('conv-1', { metadata: { tag: 'a' } });
      expect(patched.metadata).toEqual({ user: 'u1', tag: 'a' });
      expect((await c1.threads.get('conv-1')).metadata).toEqual({ user: 'u1', tag: 'a' });

      const byMeta = await c1.threads.search({ metadata: { user: 'u1' } });
      expect(byMeta.map((x) => x.thread_id)).toEqual(['conv-1']);
      const idle = await c1.threads.search({ status: 'idle', limit: 100 });
      expect(idle.map((x) => x.thread_id)).toEqual(expect.arrayContaining(['conv-1', fresh.thread_id]));
      expect(await c1.threads.search({ status: 'busy' })).toEqual([]);
      expect(await c1.threads.count({ metadata: { tag: 'a' } })).toBe(1);

      await c1.threads.delete(fresh.thread_id);
      expect(await statusOf(c1.threads.get(fresh.thread_id))).toBe(404);
      expect(await statusOf(c1.threads.get('never-made'))).toBe(404);
      expect(await statusOf(c1.threads.create({ threadId: 'bad id with spaces' }))).toBe(422);
    });

    it('derives the status from the session lease and its latest run (busy, interrupted, error, idle)', async () => {
      const pg = new Pg({ connectionString: db.url });
      await pg.connect();
      try {
        for (const id of ['st-busy', 'st-int', 'st-err']) await c1.threads.create({ threadId: id });
        const run = async (session: string, status: string) =>
          (
            await pg.query(
              `INSERT INTO runs (id, session_id, tenant_id, agent, mode, status, input) VALUES (gen_random_uuid(), $1, 't1', 'react', 'async', $2, '{}') RETURNING id`,
              [session, status],
            )
          ).rows[0].id as string;
        const busyRun = await run('st-busy', 'queued');
        await pg.query(
          `UPDATE sessions SET active_run_id = $1, lease_expires_at = now() + interval '1 minute' WHERE tenant_id = 't1' AND id = 'st-busy'`,
          [busyRun],
        );
        await run('st-int', 'interrupted');
        await run('st-err', 'failed');
        expect((await c1.threads.get('st-busy')).status).toBe('busy');
        expect((await c1.threads.get('st-int')).status).toBe('interrupted');
        expect((await c1.threads.get('st-err')).status).toBe('error');
        expect((await c1.threads.search({ status: 'error' })).map((t) => t.thread_id)).toEqual(['st-err']);
        expect(await c1.threads.count({ status: 'busy' })).toBe(1);
        // a busy thread is neither updated nor deleted
        expect(await statusOf(c1.threads.updateState('st-busy', { values: { response: 'x' }, asNode: 'ResponseNode' }))).toBe(409);
        expect(await statusOf(c1.threads.delete('st-busy'))).toBe(409);
        // …and nothing was written: no checkpoint, the run's lease untouched, the session there
        const checkpoints = await pg.query(`SELECT count(*)::int AS n FROM langgraph.checkpoints WHERE thread_id = 't1:st-busy'`);
        expect(checkpoints.rows[0].n).toBe(0);
        const lease = await pg.query(`SELECT active_run_id FROM sessions WHERE tenant_id = 't1' AND id = 'st-busy'`);
        expect(lease.rows).toEqual([{ active_run_id: busyRun }]);
        // the first run recorded on a thread without agent gave it that run's agent
        expect((await pg.query(`SELECT agent FROM sessions WHERE tenant_id = 't1' AND id = 'st-err'`)).rows[0].agent).toBe('react');
        await pg.query(`UPDATE sessions SET active_run_id = NULL, lease_expires_at = NULL WHERE tenant_id = 't1' AND id = 'st-busy'`);
        await pg.query(`UPDATE runs SET status = 'completed' WHERE session_id = 'st-busy'`);
        expect((await c1.threads.get('st-busy')).status).toBe('idle');
      } finally {
        await pg.end();
      }
    });

    it('shows the state and history of a thread a REST v1 turn ran on, copies it, updates its state', async () => {
      await c1.threads.create({ threadId: 'calc-1' });
      const empty = await c1.threads.getState('calc-1');
      expect(empty).toMatchObject({ values: {}, next: [], checkpoint: null });
      expect(await c1.threads.getHistory('calc-1')).toEqual([]);

      const turn = await v1Chat(T1, { message: '2+3', session_id: 'calc-1' });
      expect(turn.status).toBe(200);
      const result = (await turn.json()) as { response: string; agent: string };
      expect(result.agent).toBe('react');

      const thread = await c1.threads.get('calc-1');
      expect(thread.status).toBe('idle');
      const values = thread.values as { messages: Array<{ type: string; content: unknown }> };
      expect(values.messages[0]).toMatchObject({ type: 'human', content: '2+3' });
      expect(values.messages.at(-1)).toMatchObject({ type: 'ai' });

      const state = await c1.threads.getState<{ messages: Array<{ type: string; content: string; id?: string }> }>('calc-1');
      expect(state.checkpoint).toMatchObject({ thread_id: 'calc-1', checkpoint_ns: '' });
      expect(state.checkpoint.checkpoint_id).toEqual(expect.any(String));
      // the calculator ran as a tool: human, ai (tool call), tool, ai (answer)
      expect(state.values.messages.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'ai']);
      expect(JSON.stringify(state)).not.toContain('t1:calc-1');

      const history = await c1.threads.getHistory('calc-1', { limit: 50 });
      expect(history.length).toBeGreaterThan(0);
      expect(history[0].checkpoint.checkpoint_id).toBe(state.checkpoint.checkpoint_id);
      const older = history.at(-1)!;
      const atOld = await c1.threads.getState('calc-1', older.checkpoint.checkpoint_id!);
      expect(atOld.checkpoint.checkpoint_id).toBe(older.checkpoint.checkpoint_id);
      const viaPost = await c1.threads.getState('calc-1', { checkpoint_id: older.checkpoint.checkpoint_id, checkpoint_ns: '' } as never);
      expect(viaPost.checkpoint.checkpoint_id).toBe(older.checkpoint.checkpoint_id);
      expect(await statusOf(c1.threads.getState('calc-1', '1ef00000-0000-6000-8000-000000000000'))).toBe(404);
      const getHistory = await http(svc.url, 'GET', '/threads/calc-1/history?limit=1');
      expect(getHistory.status).toBe(401);
      const viaGet = await fetch(`${svc.url}/threads/calc-1/history?limit=1`, { headers: { 'x-api-key': T1 } });
      expect(((await viaGet.json()) as unknown[]).length).toBe(1);

      const copy = await c1.threads.copy('calc-1');
      expect(copy.thread_id).not.toBe('calc-1');
      const copied = await c1.threads.getState<{ messages: unknown[] }>(copy.thread_id);
      expect(copied.values.messages).toHaveLength(4);
      expect(copied.checkpoint.thread_id).toBe(copy.thread_id);

      // the SDK types the answer as a config; the server answers `{ checkpoint }` as LangGraph Server does
      const updated = (await c1.threads.updateState('calc-1', { values: { response: 'edited' }, asNode: 'ResponseNode' })) as unknown as {
        checkpoint: { thread_id: string; checkpoint_id: string };
      };
      expect(updated.checkpoint).toMatchObject({ thread_id: 'calc-1' });
      const after = await c1.threads.getState<{ response: string }>('calc-1');
      expect(after.values.response).toBe('edited');
      expect(after.checkpoint.checkpoint_id).toBe(updated.checkpoint.checkpoint_id);
      // the update held the thread's lease while it wrote, and gave it back
      expect((await c1.threads.get('calc-1')).status).toBe('idle');
      // the copy kept its own state
      expect((await c1.threads.getState<{ response: string }>(copy.thread_id)).values.response).not.toBe('edited');

      // a later REST v1 turn continues the same conversation
      expect((await v1Chat(T1, { message: '4*5', session_id: 'calc-1' })).status).toBe(200);
      const later = await c1.threads.getState<{ messages: unknown[] }>('calc-1');
      expect(later.values.messages).toHaveLength(8);
    });

    it('updates the state of a thread that has only a graph_id in its metadata, binding it to that graph', async () => {
      await c1.threads.create({ threadId: 'seeded', graphId: 'react' });
      // as_node must be a node of the graph: the SDK surfaces 422 otherwise
      expect(await statusOf(c1.threads.updateState('seeded', { values: { response: 'x' }, asNode: 'no_such_node' }))).toBe(422);
      const ok = (await c1.threads.updateState('seeded', {
        values: { messages: [{ type: 'human', content: 'hello' }] },
        asNode: 'InputNode',
      })) as unknown as { checkpoint: { thread_id: string } };
      expect(ok.checkpoint.thread_id).toBe('seeded');
      const state = await c1.threads.getState<{ messages: Array<{ type: string; content: string }> }>('seeded');
      expect(state.values.messages[0]).toMatchObject({ type: 'human', content: 'hello' });
      // the thread now belongs to react: a REST v1 turn with another agent is refused
      const other = await v1Chat(T1, { message: 'hi', session_id: 'seeded', agent: 'assistant' });
      expect(other.status).toBe(409);
      expect(await statusOf(c1.threads.updateState('conv-none', { values: {} }))).toBe(404);
      await c1.threads.create({ threadId: 'no-graph' });
      expect(await statusOf(c1.threads.updateState('no-graph', { values: { response: 'x' } }))).toBe(400);
    });
  });

  describe('store', () => {
    it('puts, gets, searches, lists namespaces and deletes items', async () => {
      await c1.store.putItem(['prefs', 'u1'], 'theme', { color: 'dark', size: 3 });
      await c1.store.putItem(['prefs', 'u2'], 'theme', { color: 'light' });
      await c1.store.putItem(['notes'], 'n1', { text: 'remember the milk' });
      const item = await c1.store.getItem(['prefs', 'u1'], 'theme');
      expect(item).toMatchObject({ namespace: ['prefs', 'u1'], key: 'theme', value: { color: 'dark', size: 3 } });
      expect(typeof item!.createdAt).toBe('string');
      expect(await c1.store.getItem(['prefs', 'u1'], 'missing')).toBeNull();

      const found = await c1.store.searchItems(['prefs']);
      expect(found.items.map((i) => i.namespace.join('/')).sort()).toEqual(['prefs/u1', 'prefs/u2']);
      const filtered = await c1.store.searchItems(['prefs'], { filter: { color: 'dark' } });
      expect(filtered.items.map((i) => i.key)).toEqual(['theme']);
      expect(filtered.items[0].namespace).toEqual(['prefs', 'u1']);
      const all = await c1.store.searchItems([]);
      expect(all.items).toHaveLength(3);

      const ns = await c1.store.listNamespaces();
      expect(ns.namespaces.map((n) => n.join('/')).sort()).toEqual(['notes', 'prefs/u1', 'prefs/u2']);
      const shallow = await c1.store.listNamespaces({ prefix: ['prefs'], maxDepth: 1 });
      expect(shallow.namespaces).toEqual([['prefs']]);

      await c1.store.deleteItem(['prefs', 'u2'], 'theme');
      expect(await c1.store.getItem(['prefs', 'u2'], 'theme')).toBeNull();
      expect(await statusOf(c1.store.putItem(['bad_label'], 'k', { a: 1 }))).toBe(422);
    });
  });

  describe('tenancy', () => {
    it("hides one tenant's threads, assistants and store items from another (404 / invisible)", async () => {
      await c1.threads.create({ threadId: 'private-1', metadata: { owner: 't1' } });
      const mine = await c1.assistants.create({ graphId: 'react', assistantId: 'private-assistant' });
      await c1.store.putItem(['secret'], 'k', { v: 'T1-ONLY' });

      expect(await statusOf(c2.threads.get('private-1'))).toBe(404);
      expect(await statusOf(c2.threads.getState('private-1'))).toBe(404);
      expect(await statusOf(c2.threads.getHistory('private-1'))).toBe(404);
      expect(await statusOf(c2.threads.update('private-1', { metadata: { x: 1 } }))).toBe(404);
      expect(await statusOf(c2.threads.copy('private-1'))).toBe(409); // a copy of a thread it cannot see: LangGraph Server's 409
      expect(await statusOf(c2.threads.delete('private-1'))).toBe(404);
      expect(await statusOf(c2.threads.updateState('private-1', { values: {} }))).toBe(404);
      expect(await c2.threads.search({ metadata: { owner: 't1' } })).toEqual([]);
      expect(await c2.threads.count()).toBe(0);

      expect(await statusOf(c2.assistants.get(mine.assistant_id))).toBe(404);
      expect(await statusOf(c2.assistants.update(mine.assistant_id, { name: 'x' }))).toBe(404);
      expect(await statusOf(c2.assistants.delete(mine.assistant_id))).toBe(404);
      expect(await statusOf(c2.assistants.getVersions(mine.assistant_id))).toBe(404);
      expect((await c2.assistants.search({ limit: 100 })).map((a) => a.assistant_id)).not.toContain(mine.assistant_id);
      // the other tenant may use the same ids for its own
      await c2.threads.create({ threadId: 'private-1' });
      expect((await c2.threads.get('private-1')).metadata).toEqual({});
      expect((await c1.threads.get('private-1')).metadata).toEqual({ owner: 't1' });

      expect(await c2.store.getItem(['secret'], 'k')).toBeNull();
      expect((await c2.store.searchItems([])).items).toEqual([]);
      expect((await c2.store.listNamespaces()).namespaces).toEqual([]);
      await c2.store.deleteItem(['secret'], 'k');
      expect((await c1.store.getItem(['secret'], 'k'))?.value).toEqual({ v: 'T1-ONLY' });

      // a REST v1 turn of the other tenant with the same session id does not reach the first tenant's thread
      expect((await v1Chat(T2, { message: '1+1', session_id: 'private-1' })).status).toBe(200);
      expect((await c1.threads.getState('private-1')).values).toEqual({});
    });
  });
});
