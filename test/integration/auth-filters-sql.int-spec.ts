import { Client } from 'pg';

import { type AuthFilters, matchesFilters, metadataContainment, parseAuthFilters } from '../../src/auth/auth-filters';
import { TEST_PG_URL } from '../support/infra';

/** resources' metadata, Korean and English, scalars, lists and nested objects */
const METADATA: Array<Record<string, unknown>> = [
  {},
  { owner: 'alice' },
  { owner: 'bob', team: 'red' },
  { owner: '앨리스', 팀: '개발팀' },
  { owner: ['alice'] },
  { owner: { id: 'alice' } },
  { owner: null },
  { owner: 1 },
  { owner: 1.0, flag: true },
  { owner: '1' },
  { tags: ['a', 'b'] },
  { tags: ['a'] },
  { tags: 'a' },
  { tags: [] },
  { tags: [['a']] },
  { tags: [{ a: 1 }, 'b'] },
  { tags: ['한국어', 'en', 3, null, false] },
];

/** filters a handler may return, each parsed as the service parses it */
const FILTERS: AuthFilters[] = [
  { owner: 'alice' },
  { owner: { $eq: 'alice' } },
  { owner: '앨리스', 팀: { $eq: '개발팀' } },
  { owner: null },
  { owner: 1 },
  { owner: '1' },
  { flag: true },
  { tags: { $contains: 'a' } },
  { tags: { $contains: ['a', 'b'] } },
  { tags: { $contains: [] } },
  { tags: { $contains: ['한국어', 3, null, false] } },
  { tags: { $contains: 'b' }, owner: 'alice' },
  {},
].map(parseAuthFilters);

/**
 * A parsed handler filter means the same in SQL (`metadata @> containment`, the threads', crons' and sessions'
 * queries) as in memory (matchesFilters: assistants, store items, one resource read back): for every pair of
 * metadata and filter, Postgres and the in-memory check agree.
 */
describe('auth filters: SQL containment and the in-memory check agree', () => {
  const db = new Client({ connectionString: TEST_PG_URL });
  beforeAll(() => db.connect());
  afterAll(() => db.end());

  it(`agrees on all ${METADATA.length * FILTERS.length} pairs`, async () => {
    const pairs = METADATA.flatMap((m) => FILTERS.map((f) => ({ m, f })));
    const { rows } = await db.query<{ ok: boolean[] }>(
      `SELECT array_agg(m @> f ORDER BY i) AS ok FROM unnest($1::jsonb[], $2::jsonb[]) WITH ORDINALITY AS p(m, f, i)`,
      [pairs.map((p) => JSON.stringify(p.m)), pairs.map((p) => JSON.stringify(metadataContainment(p.f)))],
    );
    const sql = rows[0].ok;
    const disagreements = pairs.filter((p, i) => sql[i] !== matchesFilters(p.m, p.f)).map((p) => ({ metadata: p.m, filter: { ...p.f } }));
    expect(disagreements).toEqual([]);
    // the table is not trivial: both answers occur
    expect(sql.filter(Boolean).length).toBeGreaterThan(10);
    expect(sql.filter((x) => !x).length).toBeGreaterThan(10);
  });
});
