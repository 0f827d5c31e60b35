import { Client } from '@langchain/langgraph-sdk';

import { useService } from '../support/service-fixture';

const T1 = 'tenant-one-key-0123456789';
const T2 = 'tenant-two-key-0123456789';

/** `POST /internal/truncate` (LANGGRAPH_TRUNCATE_ENABLED) empties the caller's tenant, never another's. */
describe('LangGraph API: /internal/truncate, per tenant', () => {
  const svc = useService('truncate_tenants', { env: { API_KEYS: `t1:${T1},t2:${T2}`, LANGGRAPH_TRUNCATE_ENABLED: 'true' } });
  const client = (apiKey: string) => new Client({ apiUrl: svc.url, apiKey, callerOptions: { maxRetries: 0 } });

  /** what a tenant has: threads, own assistants, store items */
  async function holdings(c: Client) {
    const assistants = await c.assistants.search({ limit: 100 });
    return {
      threads: (await c.threads.search()).length,
      assistants: assistants.filter((a) => a.metadata?.created_by !== 'system').length,
      system: assistants.filter((a) => a.metadata?.created_by === 'system').length,
      items: (await c.store.searchItems(['t'])).items.length,
    };
  }

  it("empties the caller's runs, threads, assistants and store; the other tenant keeps all of its own", async () => {
    const [c1, c2] = [client(T1), client(T2)];
    for (const c of [c1, c2]) {
      await c.threads.create();
      await c.assistants.create({ graphId: 'react' });
      await c.store.putItem(['t'], 'k', { v: 1 });
    }
    const before = await holdings(c2);
    const res = await fetch(`${svc.url}/internal/truncate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': T1 },
      body: JSON.stringify({ runs: true, threads: true, assistants: true, store: true, checkpoint: true }),
    });
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { ok: true } });
    expect(await holdings(c1)).toEqual({ threads: 0, assistants: 0, system: before.system, items: 0 });
    expect(await holdings(c2)).toEqual({ threads: 1, assistants: 1, system: before.system, items: 1 });
    expect(before.system).toBeGreaterThan(0);
  });
});
