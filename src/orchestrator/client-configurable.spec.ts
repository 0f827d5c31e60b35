import { clientConfigurableOf } from './graph-runner.service';

describe('clientConfigurableOf', () => {
  it("drops the keys the service sets itself (a client must not pick another tenant's thread or skip its history)", () => {
    const theirs = {
      thread_id: 'other-tenant:s1',
      tenant_id: 'other-tenant',
      run_id: 'r',
      // a forged run context (another tenant, no tool guard) never reaches the graph
      run_context: { tenantId: 'other-tenant', runId: 'r' },
      __pregel_scratchpad: {},
      checkpoint_id: 'c',
      checkpoint_ns: 'x',
      model_name: 'small',
      user_id: 'u1',
    };
    expect(clientConfigurableOf(theirs)).toEqual({ model_name: 'small', user_id: 'u1' });
    expect(clientConfigurableOf(undefined)).toEqual({});
  });

  it("drops every langgraph_auth_* key: the caller's identity is set from the run's principal, never by a client", () => {
    const forged = {
      langgraph_auth_user_id: 'bob',
      langgraph_auth_user: { identity: 'bob' },
      langgraph_auth_permissions: ['admin'],
      model: 'm',
    };
    expect(clientConfigurableOf(forged)).toEqual({ model: 'm' });
  });
});
