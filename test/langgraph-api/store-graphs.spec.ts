import path from 'node:path';

import { Client } from '@langchain/langgraph-sdk';

import { useService } from '../support/service-fixture';

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
