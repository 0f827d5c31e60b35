import { runAuthConfigurable, runIdentityOf } from './run-identity';

describe('run identity (langgraph_auth_*)', () => {
  it('is the token user, with its permissions', () => {
    const identity = runIdentityOf({ tenantId: 'acme', userId: 'alice', permissions: ['read', 'write'] });
    expect(runAuthConfigurable(identity)).toEqual({
      langgraph_auth_user: { identity: 'alice', display_name: 'alice', is_authenticated: true, permissions: ['read', 'write'] },
      langgraph_auth_user_id: 'alice',
      langgraph_auth_permissions: ['read', 'write'],
    });
  });

  it("is the custom auth's identity with every field it returned; its permissions are the handler's, not the service's", () => {
    const claims = { identity: 'ann', team: 'red', permissions: ['threads:write'], display_name: 'Ann', is_authenticated: true };
    const identity = runIdentityOf({ tenantId: 'default', userId: 'ann', permissions: ['read', 'write'], claims });
    expect(identity).toEqual({ user_id: 'ann', permissions: ['threads:write'], fields: claims });
  });

  it('is nobody for an API key or an open service: a graph that namespaces by user gets no user', () => {
    expect(runIdentityOf({ tenantId: 'acme', keyId: 'k1', permissions: ['read', 'write', 'admin'] })).toBeUndefined();
    expect(runIdentityOf(undefined)).toBeUndefined();
    expect(runAuthConfigurable(undefined)).toEqual({});
  });
});
