import { SessionBusyException, SessionNotFoundException } from '../../core/errors';
import { InMemoryRunState } from './in-memory-run-store';

/** The in-memory store keeps the Postgres store's contract for state updates' leases, deletion and copies. */
describe('in-memory session store: leases of state updates, deletion, copies', () => {
  const tenant = 't';

  it('a state update takes the lease only when it is free and no run is unfinished; a run waits for it', async () => {
    const s = new InMemoryRunState();
    await s.sessionStore.insert(tenant, 'a', {});
    expect(await s.sessionStore.holdForUpdate(tenant, 'a', 'h1', 60_000)).toBe('held');
    expect(await s.sessionStore.holdForUpdate(tenant, 'a', 'h2', 60_000)).toBe('busy');
    expect(await s.sessionStore.holdForUpdate(tenant, 'nowhere', 'h3', 60_000)).toBe('missing');
    await s.runStore.create({ id: 'r1', sessionId: 'a', tenantId: tenant, agent: 'x', mode: 'async', input: { message: 'hi' } });
    expect(await s.sessionStore.tryLease('a', 'r1', 60_000)).toBe(false);
    await expect(s.sessionStore.delete('a', tenant)).rejects.toBeInstanceOf(SessionBusyException);
    await s.sessionStore.releaseLease('a', 'h1');
    expect(await s.sessionStore.tryLease('a', 'r1', 60_000)).toBe(true);
    await s.sessionStore.releaseLease('a', 'r1');
    expect(await s.sessionStore.holdForUpdate(tenant, 'a', 'h4', 60_000)).toBe('busy'); // r1 has not ended
  });

  it('a copy is refused over an existing id; a deleted session is gone with its runs', async () => {
    const s = new InMemoryRunState();
    await s.sessionStore.insert(tenant, 'a', { owner: 'alice' }, 'x');
    expect(await s.sessionStore.copy(tenant, 'a', 'b', { owner: 'alice' }, 'x')).toBe(true);
    expect(await s.sessionStore.copy(tenant, 'a', 'b', {}, 'x')).toBe(false);
    expect((await s.sessionStore.get('b', tenant)).metadata).toEqual({ owner: 'alice' });
    await s.runStore.create({ id: 'r1', sessionId: 'b', tenantId: tenant, agent: 'x', mode: 'async', input: { message: 'hi' } });
    await s.sessionStore.delete('b', tenant);
    await expect(s.sessionStore.get('b', tenant)).rejects.toBeInstanceOf(SessionNotFoundException);
    await expect(s.runStore.get('r1')).rejects.toThrow();
    await expect(s.sessionStore.delete('b', tenant)).rejects.toBeInstanceOf(SessionNotFoundException);
  });
});
