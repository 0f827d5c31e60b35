import { clientConfigurableOf } from './graph-runner.service';

describe('clientConfigurableOf', () => {
  it("drops the keys the service sets itself (a client must not pick another tenant's thread or skip its history)", () => {
    const theirs = {
      thread_id: 'other-tenant:s1',
      tenant_id: 'other-tenant',
      run_id: 'r',
      opening_read: { tuple: null },
      pending_writes: {},
      tool_guard: {},
      tool_ledger: {},
      usage_collector: {},
      __pregel_scratchpad: {},
      checkpoint_id: 'c',
      checkpoint_ns: 'x',
      model_name: 'small',
      user_id: 'u1',
    };
    expect(clientConfigurableOf(theirs)).toEqual({ model_name: 'small', user_id: 'u1' });
    expect(clientConfigurableOf(undefined)).toEqual({});
  });
});
