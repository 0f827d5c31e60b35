import path from 'node:path';

import { Logger } from '@nestjs/common';

import { type AuthedRequest, authMiddleware } from '../../auth/auth.middleware';
import { ResourceAccess } from '../../auth/resource-access';
import { AppConfig } from '../../config/app-config';
import type { DomainException } from '../../core/errors';
import { customAuthUser, withCustomAuthUser } from './auth-context';
import { LanggraphCustomAuth } from './custom-auth';
import { AuthFilterRefusedException, CustomAuthException } from './custom-auth-errors';

const CONFIG = path.join(__dirname, '..', '..', '..', 'test', 'conformance', 'graphs', 'auth', 'langgraph.json');
/** handlers that return hostile filters (test/security/handler-filters.spec.ts drives them over HTTP) */
const HOSTILE = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'graphs', 'hostile-auth', 'langgraph.json');

/** the service's API key in these tests (with keys configured) */
const SERVICE_KEY = 'acme-key-0123456789abcdef';

/** whether the service has API keys configured, per custom auth of these tests */
const keysConfigured = new WeakMap<LanggraphCustomAuth, boolean>();

function customAuth(keysRequired = false, langgraphConfig = CONFIG): LanggraphCustomAuth {
  const config = { langgraphConfig, tokens: { userIsolation: 'owner' } } as never;
  const auth = new LanggraphCustomAuth(config, {} as never, new ResourceAccess(config));
  auth.onModuleInit();
  keysConfigured.set(auth, keysRequired);
  return auth;
}

const alice = { identity: 'alice', permissions: ['threads:write'], fields: { identity: 'alice', permissions: ['threads:write'] } };
const bob = { identity: 'bob', permissions: [], fields: { identity: 'bob', permissions: [] } };

/** the authentication middleware's outcome for a request under this custom auth: admitted (its principal and custom user) or refused */
function through(auth: LanggraphCustomAuth, headers: Record<string, string>, p = '/threads', method = 'GET', prefix = '') {
  const req = { path: p, originalUrl: p, method, protocol: 'http', headers: { host: 'x', ...headers } } as unknown as AuthedRequest;
  const required = keysConfigured.get(auth) ?? false;
  const keys = {
    required: async () => required,
    authenticate: async (k?: string) => (required && k === SERVICE_KEY ? { tenantId: 'acme', keyId: 'env-1' } : null),
  };
  return new Promise<{ refused?: DomainException; principal?: unknown; user?: string }>((resolve) => {
    const mw = authMiddleware(keys as never, new AppConfig({}), { custom: auth, prefix, refuse: (refused) => resolve({ refused }) });
    mw(req, {} as never, () => resolve({ principal: req.principal, user: customAuthUser()?.identity }));
  });
}

describe('LanggraphCustomAuth', () => {
  it('answers a request authenticate refuses with its status, message and headers', async () => {
    const { refused } = await through(customAuth(), {});
    expect(refused).toBeInstanceOf(CustomAuthException);
    expect(refused).toMatchObject({
      status: 401,
      platformText: 'who are you?',
      headers: { 'WWW-Authenticate': 'Bearer realm="conformance"' },
    });
  });

  it("admits the handler's user into tenant default with read and write, for the rest of the request", async () => {
    expect(await through(customAuth(), { authorization: 'Bearer user-a' })).toEqual({
      principal: {
        tenantId: 'default',
        userId: 'alice',
        permissions: ['read', 'write'],
        claims: expect.objectContaining({ identity: 'alice' }),
      },
      user: 'alice',
    });
  });

  it('admits a valid service API key (when keys are configured) as the service, and guards REST v1 as the LangGraph API', async () => {
    const operator = { principal: { tenantId: 'acme', keyId: 'env-1', permissions: ['read', 'write', 'admin'] }, user: undefined };
    expect(await through(customAuth(true), { 'x-api-key': SERVICE_KEY })).toEqual(operator);
    // a key that does not verify is refused, whatever else the request carries (it used to skip authenticate)
    expect((await through(customAuth(true), { 'x-api-key': 'k' })).refused?.code).toBe('UNAUTHORIZED');
    expect((await through(customAuth(true), { 'x-api-key': 'k', authorization: 'Bearer user-a' })).refused?.status).toBe(401);
    // a key and a custom-auth credential together: two principals, refused
    expect((await through(customAuth(true), { 'x-api-key': SERVICE_KEY, authorization: 'Bearer user-a' })).refused?.code).toBe(
      'CREDENTIALS_AMBIGUOUS',
    );
    expect((await through(customAuth(false), { 'x-api-key': 'k' })).refused?.status).toBe(401);
    expect(await through(customAuth(true), { 'x-api-key': SERVICE_KEY }, '/v1/sessions')).toEqual(operator);
    expect((await through(customAuth(), {}, '/v1/sessions')).refused?.status).toBe(401);
    expect((await through(customAuth(), { authorization: 'Bearer user-a' }, '/v1/sessions')).user).toBe('alice');
  });

  it("leaves open what the platform leaves open (/info, GETs of the graphs' UI files), also under an embedding host's prefix", async () => {
    // left to the service's own authentication: here no keys are configured, so the open tenant, never a custom user
    const open = { principal: { tenantId: 'default', permissions: ['read', 'write', 'admin'] }, user: undefined };
    expect(await through(customAuth(), {}, '/info')).toEqual(open);
    expect(await through(customAuth(), {}, '/ui/agent/entrypoint.js')).toEqual(open);
    expect((await through(customAuth(), {}, '/ui/agent', 'POST')).refused?.status).toBe(401);
    expect(await through(customAuth(), {}, '/svc/info', 'GET', 'svc')).toEqual(open);
    expect((await through(customAuth(), {}, '/svc/threads', 'GET', 'svc')).refused?.status).toBe(401);
    expect((await through(customAuth(), {}, '/svcinfo', 'GET', 'svc')).refused?.status).toBe(401);
  });

  it('calls the most specific handler: its metadata, its filter, its false as 403 with an empty body', async () => {
    const auth = customAuth();
    const value: { metadata?: Record<string, unknown> } = {};
    await withCustomAuthUser(alice, async () => {
      expect(await auth.authorize('threads', 'create', value)).toEqual({ owner: 'alice' });
      expect(await auth.authorize('threads', 'read', {})).toEqual({ owner: 'alice' });
      expect(await auth.authorize('assistants', 'search', {})).toBeUndefined();
    });
    expect(value.metadata).toEqual({ owner: 'alice' });
    await withCustomAuthUser(bob, async () => {
      await expect(auth.authorize('threads', 'delete', {})).rejects.toMatchObject({ status: 403, platformText: '' });
    });
  });

  it("answers a handler's filter it cannot apply as a bare 500, its handler and reason logged only", async () => {
    const auth = customAuth(false, HOSTILE);
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      for (const identity of ['proto-literal', 'proto-json', 'ne', 'map', 'missing']) {
        const user = { identity, permissions: [], fields: { identity, permissions: [] } };
        const refused = await withCustomAuthUser(user, () => auth.authorize('threads', 'search', {}).catch((e: unknown) => e));
        expect(refused).toBeInstanceOf(AuthFilterRefusedException);
        expect(refused).toMatchObject({ status: 500, code: 'INTERNAL_ERROR', message: 'internal error' });
      }
      expect(logged).toHaveBeenCalledTimes(5);
      expect(logged).toHaveBeenCalledWith(expect.objectContaining({ handler: '*', reason: expect.stringContaining('__proto__') }));
      const alice = { identity: 'alice', permissions: [], fields: { identity: 'alice', permissions: [] } };
      const applied = await withCustomAuthUser(alice, () => auth.authorize('threads', 'search', {}));
      expect(Object.getPrototypeOf(applied)).toBeNull();
      expect({ ...applied }).toEqual({ owner: 'alice' });
    } finally {
      logged.mockRestore();
    }
  });

  it('filters nothing for the service credentials (no custom-auth user)', async () => {
    expect(await customAuth().authorize('threads', 'read', {})).toBeUndefined();
  });
});
