import path from 'node:path';

import { type Call, caller, judge, PRINCIPALS, routeTable, Tally, type World } from '../support/authz-matrix';
import { SCRIPTED_LLM, type ServiceHandle, useService } from '../support/service-fixture';
import { newKey, TokenIssuer } from '../support/token-issuer';
import { rules } from './authorization-rules';

const CONFIG = path.join(__dirname, '..', 'conformance', 'graphs', 'http', 'langgraph.json');
const ACME = 'acme-key-0123456789abcdef';
const GLOBEX = 'globex-key-0123456789abcdef';

/**
 * A service with bearer tokens and API keys (and langgraph.json's `http` app and `ui`), its principals: the owner
 * (alice) and another user (bob) of tenant acme with read and write, acme's admin token (root), acme's API key,
 * another tenant's admin (eve of globex), and no credential.
 */
export function useTokenWorld(label: string, env: Record<string, string> = {}): { svc: ServiceHandle; world: World } {
  const issuer = new TokenIssuer();
  beforeAll(async () => {
    await issuer.start();
    issuer.published = [await newKey('k1')];
  });
  afterAll(() => issuer.stop());
  const svc = useService(label, {
    model: true,
    env: () => ({
      ...SCRIPTED_LLM,
      LANGGRAPH_CONFIG: CONFIG,
      LANGGRAPH_TRUNCATE_ENABLED: 'true',
      API_KEYS: `acme:${ACME},globex:${GLOBEX}`,
      RATE_LIMIT_PER_MINUTE: '0',
      AUTH_ISSUER: issuer.url,
      AUTH_AUDIENCE: issuer.audience,
      ...env,
    }),
  });
  const world: World = {
    label,
    graph: 'chat',
    node: 'reply',
    customAuth: false,
    tenantShared: env.AUTH_USER_ISOLATION === 'tenant',
    as: {},
  };
  beforeAll(async () => {
    svc.model.setResponder(() => ({ content: 'ok' }));
    const url = () => svc.url;
    const bearer = async (claims: Record<string, unknown>): Promise<Call> =>
      caller(url, { authorization: `Bearer ${await issuer.sign(claims)}` });
    world.as = {
      owner: await bearer({ tenant_id: 'acme', sub: 'alice', scope: 'read write' }),
      other: await bearer({ tenant_id: 'acme', sub: 'bob', scope: 'read write' }),
      otherTenant: await bearer({ tenant_id: 'globex', sub: 'eve', scope: 'admin' }),
      admin: await bearer({ tenant_id: 'acme', sub: 'root', scope: 'admin' }),
      apiKey: caller(url, { 'x-api-key': ACME }),
      none: caller(url, {}),
    };
  });
  return { svc, world };
}

/**
 * The matrix's tests for one world: the route table against the rules (a route without a rule fails; with
 * `exact`, a rule without a route too), then one test per route that tries each case as each principal.
 */
export function defineMatrix(svc: ServiceHandle, world: World, exact: boolean): void {
  const tally = new Tally();
  afterAll(() => process.stderr.write(`${tally.report(`authorization matrix (${world.label})`)}\n`));

  it('has a rule for every route of the app', () => {
    const table = rules(world).map((r) => r.route);
    const routes = routeTable(svc.app);
    expect(routes.filter((r) => !table.includes(r))).toEqual([]);
    if (exact) expect(table.filter((r) => !routes.includes(r))).toEqual([]);
  });

  for (const rule of rules(world)) {
    it(`${rule.route} (${rule.resource}:${rule.action})`, async () => {
      if (!routeTable(svc.app).includes(rule.route)) return; // not routed with this configuration
      const problems: string[] = [];
      for (const c of rule.cases) {
        for (const who of PRINCIPALS.filter((p) => world.as[p])) {
          const found = await judge(world, c, who);
          tally.record(rule.resource, `${rule.route} ${c.name} as ${who}`, found);
          problems.push(...found.map((f) => `${c.name} as ${who}: ${f}`));
        }
      }
      expect(problems).toEqual([]);
    });
  }
}
