import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { DataSource } from 'typeorm';

import { ENTITIES } from '../../src/database/entities';
import { MIGRATIONS } from '../../src/database/migrations';
import { parseContract } from '../../src/knowledge/contracts/contract-parser';
import { ContractsRepository } from '../../src/knowledge/contracts/contracts.repository';
import { chunkText } from '../../src/knowledge/documents/chunker';
import { DocumentsRepository } from '../../src/knowledge/documents/documents.repository';
import { hybridSearchQuery, type HybridSearchSpec, RRF_K, textQuery } from '../../src/knowledge/search/hybrid-search';
import { CONTRACT_ARTICLES } from '../../src/knowledge/search/knowledge-tables';
import { createTestDatabase, type TestDatabase } from '../support/infra';

const fixture = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'contracts', name), 'utf8');

const QUESTIONS = [
  '해지 조건이 뭐야?',
  '계약 기간은 얼마나 돼?',
  '대금 지급이 늦어지면 지연이자는 얼마야?',
  '손해배상 책임',
  '비밀유지 의무',
  '보증금과 차임',
  '분쟁 해결 관할 법원',
];

/** The article search as it was written before the builder (text part), kept here as the reference ranking. */
const LEGACY_ARTICLES = `WITH fts AS (
    SELECT id, row_number() OVER (ORDER BY ts_rank(tsv, to_tsquery('simple', $2)) DESC) AS r
      FROM contract_articles WHERE contract_id = $1 AND $2 <> '' AND tsv @@ to_tsquery('simple', $2) LIMIT 50),
  tri AS (
    SELECT id, row_number() OVER (ORDER BY greatest(word_similarity($3, title) * 1.5, word_similarity($3, text)) DESC) AS r
      FROM contract_articles WHERE contract_id = $1 AND ($3 <% title OR $3 <% text) LIMIT 50),
  fused AS (SELECT id, sum(1.0 / (60 + r)) AS score FROM (SELECT * FROM fts UNION ALL SELECT * FROM tri) x GROUP BY id)
  SELECT a.number, f.score::float AS score FROM fused f JOIN contract_articles a ON a.id = f.id ORDER BY f.score DESC, a.position LIMIT $4`;

/** The document chunk search as it was written before the builder (text part). */
const LEGACY_CHUNKS = `WITH fts AS (
    SELECT c.id, row_number() OVER (ORDER BY ts_rank(c.tsv, to_tsquery('simple', $1)) DESC) AS r
      FROM document_chunks c JOIN documents d ON d.id = c.document_id
     WHERE d.tenant_id = $3 AND $1 <> '' AND c.tsv @@ to_tsquery('simple', $1) LIMIT 50),
  tri AS (
    SELECT c.id, row_number() OVER (ORDER BY word_similarity($2, c.content) DESC) AS r
      FROM document_chunks c JOIN documents d ON d.id = c.document_id
     WHERE d.tenant_id = $3 AND $2 <% c.content LIMIT 50),
  fused AS (SELECT id, sum(1.0 / (60 + r)) AS score FROM (SELECT * FROM fts UNION ALL SELECT * FROM tri) x GROUP BY id)
  SELECT d.title, c.content, f.score::float AS score
    FROM fused f JOIN document_chunks c ON c.id = f.id JOIN documents d ON d.id = c.document_id
   ORDER BY f.score DESC, c.id LIMIT $4`;

/** The one hybrid-search builder, on real Postgres: same rankings as before, tenant and filters applied, parameterised. */
describe('hybrid search query builder', () => {
  let tdb: TestDatabase;
  let db: DataSource;
  let contracts: ContractsRepository;
  let documents: DocumentsRepository;
  const serviceId = randomUUID();
  const leaseId = randomUUID();
  const otherTenantId = randomUUID();

  async function addContract(id: string, tenantId: string, file: string): Promise<void> {
    await contracts.insert({ id, tenantId, title: file, kind: 'user', parsed: parseContract(fixture(file)) });
  }

  async function addDocument(tenantId: string, title: string, content: string): Promise<void> {
    const chunks = chunkText(content);
    await documents.insert({ id: randomUUID(), tenantId, title, source: null, chars: content.length, chunks });
  }

  beforeAll(async () => {
    tdb = await createTestDatabase('hybrid_search');
    db = new DataSource({ type: 'postgres', url: tdb.url, entities: ENTITIES, migrations: MIGRATIONS, poolSize: 2 });
    await db.initialize();
    await db.runMigrations();
    contracts = new ContractsRepository(db);
    documents = new DocumentsRepository(db);
    await addContract(serviceId, 'acme', 'service-agreement.md');
    await addContract(leaseId, 'acme', 'lease-agreement.txt');
    await addContract(otherTenantId, 'globex', 'service-agreement.md');
    await addDocument('acme', '용역계약', fixture('service-agreement.md'));
    await addDocument('acme', '임대차계약', fixture('lease-agreement.txt'));
    await addDocument('globex', '표준계약', fixture('standard-service-contract.md'));
  });

  afterAll(async () => {
    await db?.destroy();
    await tdb?.drop();
  });

  it('ranks contract articles exactly as the former article query did', async () => {
    let compared = 0;
    for (const q of QUESTIONS) {
      const text = textQuery(q);
      const legacy = (await db.query(LEGACY_ARTICLES, [serviceId, text.tsQuery, text.terms, 5])) as Array<{
        number: string;
        score: number;
      }>;
      const hits = await contracts.search(serviceId, { tenantId: 'acme', ...text, vector: null, limit: 5 });
      expect(hits.map((h) => [h.number, h.score])).toEqual(legacy.map((l) => [l.number, l.score]));
      compared += legacy.length;
    }
    expect(compared).toBeGreaterThan(10);
  });

  it('ranks document chunks exactly as the former chunk query did', async () => {
    let compared = 0;
    for (const q of QUESTIONS) {
      const text = textQuery(q);
      const legacy = (await db.query(LEGACY_CHUNKS, [text.tsQuery, text.terms, 'acme', 4])) as Array<{
        title: string;
        content: string;
        score: number;
      }>;
      const hits = await documents.search({ tenantId: 'acme', ...text, vector: null, limit: 4 });
      expect(hits.map((h) => [h.title, h.content, h.score])).toEqual(legacy.map((l) => [l.title, l.content, l.score]));
      compared += legacy.length;
    }
    expect(compared).toBeGreaterThan(10);
  });

  it("searches only the tenant's rows, and only the filtered contract", async () => {
    const text = textQuery('해지 조건');
    expect(await contracts.search(otherTenantId, { tenantId: 'acme', ...text, vector: null, limit: 5 })).toEqual([]);
    const own = await contracts.search(otherTenantId, { tenantId: 'globex', ...text, vector: null, limit: 5 });
    expect(own.length).toBeGreaterThan(0);
    expect(new Set(own.map((h) => h.contract_id))).toEqual(new Set([otherTenantId]));

    const globexDocs = await documents.search({ tenantId: 'globex', ...text, vector: null, limit: 10 });
    expect(globexDocs.length).toBeGreaterThan(0);
    expect(new Set(globexDocs.map((h) => h.title))).toEqual(new Set(['표준계약']));
    expect(await documents.search({ tenantId: 'nobody', ...text, vector: null, limit: 10 })).toEqual([]);
  });

  it('fuses by reciprocal rank: a row first in both full-text and trigram scores 2 / (RRF_K + 1)', async () => {
    const [top] = await contracts.search(serviceId, { tenantId: 'acme', ...textQuery('계약의 해지'), vector: null, limit: 1 });
    expect(top.score).toBeCloseTo(2 / (RRF_K + 1), 12);
    const trigramOnly = await contracts.search(serviceId, { tenantId: 'acme', tsQuery: '', terms: '손해배상', vector: null, limit: 3 });
    expect(trigramOnly.map((h) => h.score)).toEqual([1 / (RRF_K + 1), 1 / (RRF_K + 2)].map((x) => expect.closeTo(x, 12)));
  });

  it('is parameterised by the trigram columns and their weights', async () => {
    const byColumns = (trigram: HybridSearchSpec['trigram']): HybridSearchSpec => ({
      ...CONTRACT_ARTICLES,
      trigram,
      select: 't.number, t.title',
      tieBreak: 't.position',
    });
    const input = { tenantId: 'acme', tsQuery: '', terms: '손해배상', vector: null, limit: 50, where: { contract_id: serviceId } };
    const run = async (spec: HybridSearchSpec) => {
      const { sql, params } = hybridSearchQuery(spec, input);
      return ((await db.query(sql, params)) as Array<{ number: string }>).map((r) => r.number);
    };
    // 제12조 (손해배상) has it in its title; 제10조 (계약의 해지) only in its text
    expect(await run(byColumns([{ column: 'title' }]))).toEqual(['제12조']);
    expect(await run(byColumns([{ column: 'title' }, { column: 'text' }]))).toEqual(expect.arrayContaining(['제10조', '제12조']));
    const titleWeighted = await run(byColumns([{ column: 'title', weight: 3 }, { column: 'text' }]));
    expect(titleWeighted[0]).toBe('제12조');
    expect(titleWeighted).toContain('제10조');
  });

  it('adds the vector ranking only with a query vector, and refuses filter columns that are not identifiers', () => {
    const spec: HybridSearchSpec = { ...CONTRACT_ARTICLES, trigram: [{ column: 'title' }], select: 't.number', tieBreak: 't.position' };
    const base = { tenantId: 't', tsQuery: 'a:*', terms: 'a', limit: 3, where: { contract_id: serviceId } };
    const textOnly = hybridSearchQuery(spec, { ...base, vector: null });
    expect(textOnly.sql).not.toContain('<=>');
    expect(textOnly.params).toEqual(['t', 'a:*', 'a', 3, serviceId]);
    const withVector = hybridSearchQuery(spec, { ...base, vector: '[1,0]' });
    expect(withVector.sql).toContain('t.embedding <=> $6::vector');
    expect(withVector.sql).toContain('SELECT * FROM vec');
    expect(withVector.params[5]).toBe('[1,0]');
    expect(() => hybridSearchQuery(spec, { ...base, vector: null, where: { 'id = id OR 1': 1 } })).toThrow(/bad filter column/);
  });
});
