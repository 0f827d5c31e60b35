import path from 'node:path';

import { caller, type World } from '../support/authz-matrix';
import { useService } from '../support/service-fixture';
import { defineMatrix } from './authorization-world';

const CONFIG = path.join(__dirname, '..', 'fixtures', 'graphs', 'team-auth', 'langgraph.json');
const KEY = 'default-key-0123456789abcdef';
const GLOBEX = 'globex-key-0123456789abcdef';

/**
 * The same matrix with langgraph.json's custom auth (test/fixtures/graphs/team-auth): its `authenticate` decides
 * who a request is (ann and al of team red, ben of team blue), its handlers share threads within a team, and the
 * built-in owner rule decides assistants, crons and the store for those identities. The owner is ann; al is a
 * teammate (sees and runs ann's threads, nothing else of hers); ben is another user; another tenant's API key and
 * this tenant's key are the operators.
 */
describe('authorization matrix: custom auth identities (langgraph.json auth)', () => {
  const svc = useService('authz_matrix_custom', {
    env: {
      LANGGRAPH_CONFIG: CONFIG,
      LANGGRAPH_TRUNCATE_ENABLED: 'true',
      API_KEYS: `default:${KEY},globex:${GLOBEX}`,
      RATE_LIMIT_PER_MINUTE: '0',
    },
  });
  const url = () => svc.url;
  const world: World = {
    label: 'custom auth',
    graph: 'echo',
    node: 'respond',
    customAuth: true,
    tenantShared: false,
    as: {
      owner: caller(url, { authorization: 'Bearer ann' }),
      teammate: caller(url, { authorization: 'Bearer al' }),
      other: caller(url, { authorization: 'Bearer ben' }),
      otherTenant: caller(url, { 'x-api-key': GLOBEX }),
      apiKey: caller(url, { 'x-api-key': KEY }),
      none: caller(url, {}),
    },
  };
  // not every route of the tokens' instance is routed here (no http app, no ui): a rule without a route is skipped
  defineMatrix(svc, world, false);
});
