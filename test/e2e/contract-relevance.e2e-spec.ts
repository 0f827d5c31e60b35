import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { useService } from '../support/service-fixture';

const contract = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'contracts', name), 'utf8');
const refs = (body: { sources: Array<{ ref: string }> }) => body.sources.map((s) => s.ref);

/**
 * Contract answers without a model list only the articles about the question, and say plainly, in the user's
 * language, when the contract has no clause on it (neither fixture has a governing-law clause).
 */
describe('contract-qa: only the matching articles, and the clause a contract lacks', () => {
  const svc = useService('contract_relevance');
  const ask = (contract_id: string, message: string) => svc.http('POST', '/v1/chat', { agent: 'contract-qa', contract_id, message });
  let english: string;
  let korean: string;

  beforeAll(async () => {
    english = (await svc.http('POST', '/v1/contracts', { title: 'Services Agreement', content: contract('service-agreement-en.md') })).body
      .contract_id;
    korean = (await svc.http('POST', '/v1/contracts', { title: '용역계약서', content: contract('service-agreement.md') })).body.contract_id;
  });

  it('says the contract has no governing-law clause and shows only the disputes article (English)', async () => {
    const res = await ask(english, 'Which law governs this agreement?');
    expect(res.body.response).toMatch(
      /^The contract has no clause on the governing law\. The nearest articles:\n\n\[Article 15 Dispute Resolution\][\s\S]*Seoul Central District Court/,
    );
    expect(refs(res.body)).toEqual(['Article 15']);
    expect(res.body.metadata).toMatchObject({ model_used: false });
  });

  it('says so in Korean for a Korean question', async () => {
    const res = await ask(korean, '이 계약의 준거법은 뭐야?');
    expect(res.body.response).toMatch(/^계약서에 준거법에 관한 조항이 없습니다\. 가장 가까운 조항입니다:\n\n\[제15조 분쟁해결\]/);
    expect(refs(res.body)).toEqual(['제15조']);
  });

  it('lists only the articles about the question, not the four best-ranked', async () => {
    const payment = await ask(english, 'When are the fees paid?');
    expect(payment.body.response).toMatch(/^The relevant articles:\n\n\[Article 5 Fees and Payment\]/);
    expect(refs(payment.body)).toEqual(['Article 5']);
    const termination = await ask(korean, '해지 조건이 뭐야?');
    expect(refs(termination.body).sort()).toEqual(['제10조', '제10조의2']);
    const disputes = await ask(english, 'Which court has jurisdiction over disputes?');
    expect(refs(disputes.body)).toEqual(['Article 15']);
    expect(disputes.body.response).not.toMatch(/no clause/);
  });
});
