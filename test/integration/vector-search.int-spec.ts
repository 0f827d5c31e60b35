import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ContractsService } from '../../src/knowledge/contracts/contracts.service';
import { DocumentsService } from '../../src/knowledge/documents/documents.service';
import { createTestDatabase } from '../support/infra';
import { ScriptedModelServer } from '../support/model-server';
import { http, startApp } from '../support/test-app';

const contract = readFileSync(join(__dirname, '..', 'fixtures', 'contracts', 'service-agreement.md'), 'utf8');

const article10Squashed = (articles: Array<{ clauses: string[] }>) => articles[0].clauses[0].replace(/\s+/g, '');

/**
 * Vector similarity joins the hybrid search when embeddings are configured and pgvector exists — on the
 * embedded Postgres (PGlite ships pgvector). On the system Postgres 15 (no pgvector) search stays text-only.
 */
describe('vector search', () => {
  const model = new ScriptedModelServer();
  beforeAll(() => model.start());
  afterAll(() => model.stop());

  it('embeds articles and chunks on PGlite and finds what text search cannot', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agents-vectors-'));
    const svc = await startApp({ DATA_DIR: dataDir, EMBEDDINGS_BASE_URL: model.baseUrl, EMBEDDINGS_MODEL: 'scripted-embeddings' });
    try {
      const up = await http(svc.url, 'POST', '/v1/contracts', { title: '용역계약', content: contract });
      expect(up.status).toBe(201);
      expect(model.embeddingCalls).toBeGreaterThanOrEqual(1);
      const contracts = svc.app.get(ContractsService);
      const article10 = (await contracts.articles(up.body.contract_id, [10], 'default'))[0];
      // the clause with every space removed: one long token, no full-text or trigram word match
      const squashed = article10.clauses[0].replace(/\s+/g, '');
      const hits = await contracts.searchArticles(up.body.contract_id, squashed, 3, 'default');
      expect(hits[0]?.number).toBe('제10조');

      await http(svc.url, 'POST', '/v1/documents', { title: '휴가 규정', content: '연차 휴가는 입사 1년 후 15일이 주어진다.' });
      const docs = await svc.app.get(DocumentsService).search('연차휴가는입사1년후15일이주어진다', 2);
      expect(docs[0]?.title).toBe('휴가 규정');
    } finally {
      await svc.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('stays text-only where pgvector is missing (system Postgres), even with embeddings configured', async () => {
    const db = await createTestDatabase('vectors_pg15');
    const svc = await startApp({ DATABASE_URL: db.url, EMBEDDINGS_BASE_URL: model.baseUrl, EMBEDDINGS_MODEL: 'scripted-embeddings' });
    try {
      model.reset();
      const up = await http(svc.url, 'POST', '/v1/contracts', { title: '용역계약', content: contract });
      expect(up.status).toBe(201);
      expect(model.embeddingCalls).toBe(0);
      const contracts = svc.app.get(ContractsService);
      const hits = await contracts.searchArticles(up.body.contract_id, '해지 조건이 뭐야?', 3, 'default');
      expect(hits.slice(0, 2).map((h) => h.number)).toContain('제10조');
      expect(
        await contracts.searchArticles(
          up.body.contract_id,
          article10Squashed(await contracts.articles(up.body.contract_id, [10], 'default')),
          3,
          'default',
        ),
      ).toEqual([]);
    } finally {
      await svc.close();
      await db.drop();
    }
  });
});
