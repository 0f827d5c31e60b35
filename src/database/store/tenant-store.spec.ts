import { InMemoryStore } from '@langchain/langgraph';

import type { ItemRef, StoreOwners } from './store-owners';
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

  it("records the items a user's run creates as that user's; existing items keep their owner, deleted ones lose it", async () => {
    const inner = new InMemoryStore();
    const owners = new Map<string, string>();
    const at = (ref: ItemRef) => `${ref.namespace.join(':')}/${ref.key}`;
    const record = jest.fn(async (ref: ItemRef, user: string | undefined) => void owners.set(at(ref), user!));
    const forget = jest.fn(async (ref: ItemRef) => void owners.delete(at(ref)));
    const actor = (user: string) => ({ user, owners: { record, forget } as unknown as StoreOwners });
    const label = tenantLabel('a');
    await new TenantStore(inner, 'a').put(['notes'], 'by-key', { n: 0 }); // an operator's (API key's) run: no owner
    const alice = new TenantStore(inner, 'a', actor('alice'));
    const bob = new TenantStore(inner, 'a', actor('bob'));

    await alice.put(['notes'], 'k', { n: 1 });
    await bob.put(['notes'], 'k', { n: 2 }); // exists: stays alice's
    await bob.put(['notes'], 'by-key', { n: 3 }); // exists, without an owner: stays so
    await bob.batch([
      { namespace: ['notes'], key: 'b1', value: { n: 4 } },
      { namespace: ['notes'], key: 'b2', value: { n: 5 } },
      { namespace: ['notes'], key: 'k' },
    ]);
    expect(Object.fromEntries(owners)).toEqual({
      [`${label}:notes/k`]: 'alice',
      [`${label}:notes/b1`]: 'bob',
      [`${label}:notes/b2`]: 'bob',
    });
    expect((await alice.get(['notes'], 'k'))?.value).toEqual({ n: 2 });

    await bob.delete(['notes'], 'k');
    expect(owners.has(`${label}:notes/k`)).toBe(false);
    await alice.put(['notes'], 'k', { n: 6 }); // created again: now alice's again
    expect(owners.get(`${label}:notes/k`)).toBe('alice');
  });
});
