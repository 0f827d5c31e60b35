import { InMemoryStore } from '@langchain/langgraph';

import { tenantLabel, TenantStore } from './tenant-store';

describe('TenantStore', () => {
  it("prefixes every op's namespace with the tenant label and strips it from results", async () => {
    const inner = new InMemoryStore();
    const a = new TenantStore(inner, 'a');
    const b = new TenantStore(inner, 'b');
    await a.put(['memories', 'u1'], 'k', { text: 'x' });
    await b.put(['memories', 'u1'], 'k', { text: 'y' });

    expect((await inner.get([tenantLabel('a'), 'memories', 'u1'], 'k'))?.value).toEqual({ text: 'x' });
    expect(await a.get(['memories', 'u1'], 'k')).toMatchObject({ namespace: ['memories', 'u1'], value: { text: 'x' } });
    expect((await b.get(['memories', 'u1'], 'k'))?.value).toEqual({ text: 'y' });

    const found = await a.search(['memories']);
    expect(found.map((i) => [i.namespace, i.value])).toEqual([[['memories', 'u1'], { text: 'x' }]]);
    expect(await a.listNamespaces()).toEqual([['memories', 'u1']]);
    expect(await a.listNamespaces({ prefix: ['memories'], maxDepth: 1 })).toEqual([['memories']]);

    await a.delete(['memories', 'u1'], 'k');
    expect(await a.get(['memories', 'u1'], 'k')).toBeNull();
    expect((await b.get(['memories', 'u1'], 'k'))?.value).toEqual({ text: 'y' });
  });

  it('refuses labels the API could not address', async () => {
    const a = new TenantStore(new InMemoryStore(), 'a');
    await expect(a.put(['mem_x'], 'k', {})).rejects.toThrow(/labels cannot/);
  });
});
