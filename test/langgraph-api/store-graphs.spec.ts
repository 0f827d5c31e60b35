import path from 'node:path';

import { Client } from '@langchain/langgraph-sdk';

import { useService } from '../support/service-fixture';
import { newKey, TokenIssuer } from '../support/token-issuer';

const T1 = 'tenant-one-key-0123456789';
const T2 = 'tenant-two-key-0123456789';
const FIXTURES = path.join(__dirname, '..', 'fixtures', 'graphs');

/** A custom graph's `config.store` is its tenant's `/store`: what it writes, that tenant (only) reads back. */
describe('LangGraph store from graphs (config.store), per tenant', () => {
  const svc = useService('lgstoregraphs', {
    env: { API_KEYS: `t1:${T1},t2:${T2}`, LANGGRAPH_CONFIG: path.join(FIXTURES, 'langgraph.store.json') },
  });
  let c1: Client;
  let c2: Client;

  beforeAll(() => {
    c1 = new Client({ apiUrl: svc.url, apiKey: T1, callerOptions: { maxRetries: 0 } });
    c2 = new Client({ apiUrl: svc.url, apiKey: T2, callerOptions: { maxRetries: 0 } });
  });

  const chat = async (key: string, message: string) => {
    const res = await fetch(`${svc.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ agent: 'memory', message }),
    });
    const body = (await res.json()) as { response: string; error: unknown };
    expect({ status: res.status, error: body.error }).toEqual({ status: 200, error: null });
    return body.response;
  };

  it("writes the tenant's items, which its /store shows and another tenant's does not", async () => {
    expect(await chat(T1, 'first note')).toBe('before=none found=memories/u1:k=first note');

    const item = await c1.store.getItem(['memories', 'u1'], 'k');
    expect(item).toMatchObject({ namespace: ['memories', 'u1'], key: 'k', value: { text: 'first note' } });
    expect(await c2.store.getItem(['memories', 'u1'], 'k')).toBeNull();
    expect((await c2.store.searchItems(['memories'])).items).toEqual([]);
    expect((await c1.store.listNamespaces()).namespaces).toEqual([['memories', 'u1']]);
  });

  it('reads, in a later turn (another thread), what an earlier turn and the API wrote', async () => {
    await c1.store.putItem(['memories', 'u2'], 'k', { text: 'from the api' });
    expect(await chat(T1, 'second note')).toBe('before=first note found=memories/u1:k=second note,memories/u2:k=from the api');
    expect((await c1.store.getItem(['memories', 'u1'], 'k'))?.value).toEqual({ text: 'second note' });
  });

  it("keeps another tenant's graph to its own items", async () => {
    expect(await chat(T2, 'other tenant')).toBe('before=none found=memories/u1:k=other tenant');
    expect((await c2.store.getItem(['memories', 'u1'], 'k'))?.value).toEqual({ text: 'other tenant' });
    expect((await c1.store.getItem(['memories', 'u1'], 'k'))?.value).toEqual({ text: 'second note' });
  });
});

/**
 * Under the owner rule (AUTH_USER_ISOLATION=owner, the default), what a user's run puts is that user's, as if they
 * had put it through `/store/items`: they read it back there, another user of the tenant does not, the operator does.
 */
describe("a user's graph run puts store items as theirs", () => {
  const ACME = 'acme-key-0123456789abcdef';
  const issuer = new TokenIssuer();
  beforeAll(async () => {
    await issuer.start();
    issuer.published = [await newKey('k1')];
  });
  afterAll(() => issuer.stop());
  const svc = useService('lgstoreowners', {
    env: () => ({
      API_KEYS: `acme:${ACME}`,
      AUTH_ISSUER: issuer.url,
      AUTH_AUDIENCE: issuer.audience,
      LANGGRAPH_CONFIG: path.join(FIXTURES, 'langgraph.store.json'),
    }),
  });
  const as = async (sub: string) => {
    const token = await issuer.sign({ tenant_id: 'acme', sub, scope: 'read write' });
    return async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${svc.url}${p}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      const json = (res.headers.get('content-type') ?? '').includes('json');
      return { status: res.status, body: (json && text ? JSON.parse(text) : text) as any };
    };
  };

  it('shows the item to its user and the operator, not to another user; an item another run overwrites stays its creator’s', async () => {
    const [alice, bob] = [await as('alice'), await as('bob')];
    const chat = async (who: typeof alice, message: string) => {
      const res = await who('POST', '/v1/chat', { agent: 'memory', message });
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: null });
      return res.body.response as string;
    };
    expect(await chat(alice, 'alice note')).toBe('before=none found=memories/u1:k=alice note');

    const item = '/store/items?namespace=memories.u1&key=k';
    expect(await alice('GET', item)).toMatchObject({ status: 200, body: { value: { text: 'alice note' } } });
    expect((await bob('GET', item)).status).toBe(404);
    expect((await bob('POST', '/store/items/search', { namespace_prefix: ['memories'] })).body.items).toEqual([]);
    expect((await alice('POST', '/store/namespaces', {})).body.namespaces).toEqual([['memories', 'u1']]);
    expect((await bob('POST', '/store/namespaces', {})).body.namespaces).toEqual([]);
    const operator = new Client({ apiUrl: svc.url, apiKey: ACME, callerOptions: { maxRetries: 0 } });
    expect((await operator.store.getItem(['memories', 'u1'], 'k'))?.value).toEqual({ text: 'alice note' });

    // the graph reads and writes the whole tenant's store; the item it overwrites keeps its owner
    expect(await chat(bob, 'bob note')).toBe('before=alice note found=memories/u1:k=bob note');
    expect((await bob('GET', item)).status).toBe(404);
    expect(await alice('GET', item)).toMatchObject({ status: 200, body: { value: { text: 'bob note' } } });
  });
});
