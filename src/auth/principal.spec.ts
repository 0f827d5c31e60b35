import { permissionsOf, scopeNamesOf } from './principal';
import { permissionFor } from './scope.guard';

describe('token scopes → permissions', () => {
  it('reads `scope` (space-separated), `scp` and `permissions` (arrays or strings), ignoring other values', () => {
    expect(scopeNamesOf({ scope: 'openid  read', scp: ['write', 7], permissions: 'admin' })).toEqual(['openid', 'read', 'write', 'admin']);
    expect(scopeNamesOf({ scope: 42 })).toEqual([]);
  });

  it('maps the prefixed names, each implying the ones below it, and nothing else', () => {
    expect(permissionsOf({ scope: 'read' }, '')).toEqual(['read']);
    expect(permissionsOf({ scp: ['write'] }, '')).toEqual(['read', 'write']);
    expect(permissionsOf({ permissions: ['admin'] }, '')).toEqual(['read', 'write', 'admin']);
    expect(permissionsOf({ scope: 'agents:read agents:write' }, 'agents:')).toEqual(['read', 'write']);
    expect(permissionsOf({ scope: 'read write admin' }, 'agents:')).toEqual([]);
    expect(permissionsOf({ scope: 'readwrite profile' }, '')).toEqual([]);
  });
});

describe('the permission a request needs', () => {
  it.each([
    ['GET', '/v1/agents', 'read'],
    ['HEAD', '/threads/t1', 'read'],
    ['POST', '/threads/search', 'read'],
    ['POST', '/runs/crons/count', 'read'],
    ['POST', '/threads/t1/history', 'read'],
    ['POST', '/assistants/a1/versions', 'read'],
    ['POST', '/store/namespaces', 'read'],
    ['POST', '/agents/threads/search/', 'read'],
    ['POST', '/threads', 'write'],
    ['POST', '/v1/chat', 'write'],
    ['POST', '/threads/search-party/runs', 'write'],
    ['PATCH', '/threads/t1', 'write'],
    ['PUT', '/store/items', 'write'],
    ['DELETE', '/v1/sessions/s1', 'write'],
  ])('%s %s → %s', (method, path, needed) => {
    expect(permissionFor(method, path)).toBe(needed);
  });
});
