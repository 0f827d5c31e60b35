import path from 'node:path';

import { type Call, caller, judge, PRINCIPALS, routeTable, Tally, type World } from '../support/authz-matrix';
import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { newKey, TokenIssuer } from '../support/token-issuer';
import { rules } from './authorization-rules';

const CONFIG = path.join(__dirname, '..', 'conformance', 'graphs', 'http', 'langgraph.json');
const ACME = 'acme-key-0123456789abcdef';
const GLOBEX = 'globex-key-0123456789abcdef';

/**
 * Authorization by action × resource × principal, generated from the app's route table: every route (REST v1,
 * the LangGraph API, /mcp, /ui, the http app, /internal) has a rule in authorization-rules.ts, and each of its
 * cases is tried as the owner (a token user), another user of the tenant, another tenant's admin, the tenant's
 * admin token, its API key and no credential. A denied try must leak nothing and change nothing (read back by
 * the tenant's API key), and leave nothing of the owner's in the caller's own views.
 */
describe('authorization matrix: tokens and API keys', () => {
  const issuer = new TokenIssuer();
  beforeAll(async () => {
    await issuer.start();
    issuer.published = [await newKey('k1')];
  });
  afterAll(() => issuer.stop());
  const svc = useService('authz_matrix', {
    model: true,
    env: () => ({
      ...SCRIPTED_LLM,
      LANGGRAPH_CONFIG: CONFIG,
      LANGGRAPH_TRUNCATE_ENABLED: 'true',
      API_KEYS: `acme:${ACME},globex:${GLOBEX}`,
      RATE_LIMIT_PER_MINUTE: '0',
      AUTH_ISSUER: issuer.url,
      AUTH_AUDIENCE: issuer.audience,
    }),
  });
  const tally = new Tally();
  const world: World = { label: 'tokens', graph: 'chat', node: 'reply', customAuth: false, as: {} };

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
  afterAll(() => process.stderr.write(`${tally.report('authorization matrix (tokens, API keys)')}\n`));

  it('has a rule for every route of the app, and no rule for a route it does not have', () => {
    const table = rules(world).map((r) => r.route);
    const routes = routeTable(svc.app);
    expect(routes.filter((r) => !table.includes(r))).toEqual([]);
    expect(table.filter((r) => !routes.includes(r))).toEqual([]);
  });

  for (const rule of rules(world)) {
    it(`${rule.route} (${rule.resource}:${rule.action})`, async () => {
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
});
