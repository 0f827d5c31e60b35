import { isOthersMemories, memoryNamespace } from './memory-namespace';
import type { RequestPrincipal } from './principal';
import { NOT_HANDLED, ownerRuleOf, ResourceAccess } from './resource-access';
import { runAsPrincipal } from './tenant';

const alice: RequestPrincipal = { tenantId: 't', userId: 'alice', permissions: ['read', 'write'] };
const admin: RequestPrincipal = { tenantId: 't', userId: 'root', permissions: ['read', 'write', 'admin'] };
const apiKey: RequestPrincipal = { tenantId: 't', keyId: 'k', permissions: ['read', 'write', 'admin'] };

const accessOf = (userIsolation: 'owner' | 'tenant' = 'owner') => new ResourceAccess({ tokens: { userIsolation } } as never);

describe('ResourceAccess', () => {
  it("confines a user without admin to what it owns, and stamps its owner over the client's on creates only", async () => {
    const access = accessOf();
    const created = { metadata: { owner: 'mallory', x: 1 } };
    const searched = { metadata: { owner: 'mallory' } };
    await runAsPrincipal(alice, async () => {
      const filters = await access.authorize('threads', 'create', created);
      expect(filters).toEqual({ owner: 'alice' });
      expect(ownerRuleOf(filters)).toBe('alice');
      await access.authorize('threads', 'search', searched);
    });
    expect(created.metadata).toEqual({ owner: 'alice', x: 1 });
    expect(searched.metadata).toEqual({ owner: 'mallory' });
  });

  it("reaches a user's own memories; only an operator names another user, and a caller without a user must name one", async () => {
    for (const isolation of ['owner', 'tenant'] as const) {
      const access = accessOf(isolation);
      expect(await runAsPrincipal(alice, () => access.authorize('memories', 'read', {}))).toEqual({ owner: 'alice' });
      expect(await runAsPrincipal(alice, () => access.authorize('memories', 'delete', { user_id: 'alice' }))).toEqual({ owner: 'alice' });
      await expect(runAsPrincipal(alice, () => access.authorize('memories', 'read', { user_id: 'bob' }))).rejects.toMatchObject({
        status: 403,
      });
      expect(await runAsPrincipal(admin, () => access.authorize('memories', 'delete', { user_id: 'bob' }))).toEqual({ owner: 'bob' });
      expect(await runAsPrincipal(apiKey, () => access.authorize('memories', 'read', { user_id: 'bob' }))).toEqual({ owner: 'bob' });
      await expect(runAsPrincipal(apiKey, () => access.authorize('memories', 'read', {}))).rejects.toMatchObject({ status: 400 });
      await expect(access.authorize('memories', 'read', { user_id: 'bob' })).rejects.toMatchObject({ status: 403 });
    }
  });

  it("keeps the assistant's memories of a user to that user whatever the isolation or a handler: no reading or planting another's", async () => {
    for (const isolation of ['owner', 'tenant'] as const) {
      const access = accessOf(isolation);
      access.useHandlers(async () => undefined); // a handler that would let everything through
      const put = (namespace: string[]) => access.authorize('store', 'put', { namespace, key: 'k', value: {} });
      await expect(runAsPrincipal(alice, () => put(memoryNamespace('bob')))).rejects.toMatchObject({ status: 403 });
      await expect(
        runAsPrincipal(alice, () => access.authorize('store', 'get', { namespace: memoryNamespace('bob') })),
      ).rejects.toMatchObject({
        status: 403,
      });
      // the caller's own, a graph's own namespace under `memories`, and an operator's reach: the usual rules
      await expect(runAsPrincipal(alice, () => put(memoryNamespace('alice')))).resolves.toBeUndefined();
      await expect(runAsPrincipal(alice, () => put(['memories', 'bob']))).resolves.toBeUndefined();
      expect(await runAsPrincipal(admin, () => put(memoryNamespace('bob')))).toBeUndefined();
      expect(await runAsPrincipal(apiKey, () => put(memoryNamespace('bob')))).toBeUndefined();
    }
    expect(isOthersMemories(memoryNamespace('alice'), 'alice')).toBe(false);
    expect(isOthersMemories(memoryNamespace('bob'), 'alice')).toBe(true);
    expect(isOthersMemories(['notes', 'x'], 'alice')).toBe(false);
    expect(isOthersMemories(['memories', 'bob'], 'alice')).toBe(false);
    expect(isOthersMemories(['memories'], 'alice')).toBe(false);
  });

  it('leaves the whole tenant to an admin token, an API key, no request, and AUTH_USER_ISOLATION=tenant', async () => {
    for (const p of [admin, apiKey]) expect(await runAsPrincipal(p, () => accessOf().authorize('threads', 'read', {}))).toBeUndefined();
    expect(await accessOf().authorize('threads', 'read', {})).toBeUndefined();
    expect(await runAsPrincipal(alice, () => accessOf('tenant').authorize('threads', 'read', {}))).toBeUndefined();
  });

  it('records the creator as the owner whatever the isolation, and lets an admin change an owner', async () => {
    const [byAlice, byAdmin, patched] = [{ metadata: {} }, { metadata: {} }, { metadata: { owner: 'alice' } }];
    await runAsPrincipal(alice, () => accessOf('tenant').authorize('assistants', 'create', byAlice));
    await runAsPrincipal(admin, () => accessOf().authorize('threads', 'create_run', byAdmin));
    await runAsPrincipal(admin, () => accessOf().authorize('threads', 'update', patched));
    expect([byAlice.metadata, byAdmin.metadata, patched.metadata]).toEqual([{ owner: 'alice' }, { owner: 'root' }, { owner: 'alice' }]);
  });

  it("lets a custom handler decide where one applies (its filter is not the owner rule's), the rule elsewhere", async () => {
    const access = accessOf();
    access.useHandlers(async (resource) => (resource === 'threads' ? { team: 'red' } : resource === 'crons' ? undefined : NOT_HANDLED));
    await runAsPrincipal(alice, async () => {
      const team = await access.authorize('threads', 'read', {});
      expect(team).toEqual({ team: 'red' });
      expect(ownerRuleOf(team)).toBeUndefined();
      expect(await access.authorize('crons', 'read', {})).toBeUndefined();
      expect(await access.authorize('assistants', 'read', {})).toEqual({ owner: 'alice' });
    });
  });

  it('lets only admin (an API key, an admin token) truncate the tenant, whatever a handler says; no principal is refused', async () => {
    const access = accessOf('tenant');
    access.useHandlers(async () => undefined); // a handler allowing everything does not widen it
    for (const p of [admin, apiKey])
      await expect(runAsPrincipal(p, () => access.authorize('tenant', 'truncate', {}))).resolves.toBeUndefined();
    await expect(runAsPrincipal(alice, () => access.authorize('tenant', 'truncate', {}))).rejects.toMatchObject({ status: 403 });
    await expect(access.authorize('tenant', 'truncate', {})).rejects.toMatchObject({ status: 403 });
  });

  it("shares documents and contracts with the tenant, but confines a user's delete to what it uploaded", async () => {
    for (const isolation of ['owner', 'tenant'] as const) {
      const access = accessOf(isolation);
      await runAsPrincipal(alice, async () => {
        expect(await access.authorize('documents', 'read', {})).toBeUndefined();
        expect(await access.authorize('contracts', 'search', {})).toBeUndefined();
        expect(await access.authorize('documents', 'delete', {})).toEqual({ owner: 'alice' });
      });
      expect(await runAsPrincipal(admin, () => access.authorize('contracts', 'delete', {}))).toBeUndefined();
      expect(await runAsPrincipal(apiKey, () => access.authorize('documents', 'delete', {}))).toBeUndefined();
    }
  });

  it("keeps a handler's filter on knowledge, and never lets it widen a delete", async () => {
    const access = accessOf();
    access.useHandlers(async (_resource, action) => (action === 'delete' ? { owner: 'mallory' } : { team: 'red' }));
    await runAsPrincipal(alice, async () => {
      expect(await access.authorize('documents', 'read', {})).toEqual({ team: 'red' });
      const del = await access.authorize('documents', 'delete', {});
      expect(del?.owner).not.toBe('alice');
      expect(del?.owner).not.toBe('mallory');
    });
  });
});
