import { spawnSync } from 'node:child_process';

import { createTestDatabase } from '../support/infra';
import { http, startApp } from '../support/test-app';

const OPENSEARCH_URL = process.env.TEST_OPENSEARCH_URL ?? 'http://127.0.0.1:9200';
const reachable = spawnSync('curl', ['-sf', '-m', '2', OPENSEARCH_URL]).status === 0;
if (!reachable) {
  process.stderr.write(`\n[opensearch.int-spec] SKIPPED: no OpenSearch answers at ${OPENSEARCH_URL} (set TEST_OPENSEARCH_URL to run it)\n`);
}

/** KNOWLEDGE_BACKEND=opensearch against a real cluster; skipped (with the message above) where none runs. */
(reachable ? describe : describe.skip)('knowledge base on OpenSearch', () => {
  it('indexes, searches with sources, and forgets a deleted document', async () => {
    const db = await createTestDatabase('opensearch');
    const index = `agents-test-${Date.now()}`;
    const svc = await startApp({ DATABASE_URL: db.url, KNOWLEDGE_BACKEND: 'opensearch', OPENSEARCH_URL, OPENSEARCH_INDEX: index });
    try {
      const doc = await http(svc.url, 'POST', '/v1/documents', {
        title: 'Vacation policy',
        content: '# Leave\n\nEmployees get 15 days of paid vacation per year.',
        source: 'hr.md',
      });
      expect(doc.status).toBe(201);
      const res = await http(svc.url, 'POST', '/v1/chat', { agent: 'assistant', message: 'What is the company vacation policy?' });
      expect(res.body.sources).toEqual([expect.objectContaining({ title: 'Vacation policy', ref: 'hr.md' })]);
      expect((await http(svc.url, 'DELETE', `/v1/documents/${doc.body.document_id}`)).status).toBe(204);
      const after = await http(svc.url, 'POST', '/v1/chat', { agent: 'assistant', message: 'What is the company vacation policy?' });
      expect(after.body.sources).toEqual([]);
    } finally {
      await svc.close();
      await db.drop();
      spawnSync('curl', ['-s', '-X', 'DELETE', `${OPENSEARCH_URL}/${index}`]);
    }
  });
});
