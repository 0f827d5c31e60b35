import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { http } from '../support/test-app';

/** One iteration limit per agent: MAX_ITERATIONS (deprecated) still limits react, and only react. */
describe('iteration limits per agent', () => {
  const svc = useService('agents_limits', {
    env: { ...SCRIPTED_LLM, MAX_ITERATIONS: '1', CONTRACT_QA_MAX_ITERATIONS: '2' },
    model: { resetEach: true },
  });
  const { model } = svc;
  let contractId: string;

  beforeAll(async () => {
    const contract = readFileSync(join(__dirname, '..', 'fixtures', 'contracts', 'service-agreement.md'), 'utf8');
    contractId = (await http(svc.url, 'POST', '/v1/contracts', { title: '용역계약서', content: contract })).body.contract_id;
  });

  it('react keeps honouring MAX_ITERATIONS', async () => {
    model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] }, { content: '42' });
    const res = await http(svc.url, 'POST', '/v1/chat', { agent: 'react', message: '6 곱하기 7은?' });
    expect(res.body.error).toMatchObject({ code: 'ITERATION_LIMIT' });
  });

  it('the assistant has its own limit (ASSISTANT_MAX_ITERATIONS, default 10)', async () => {
    model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] }, { content: '42입니다.' });
    const res = await http(svc.url, 'POST', '/v1/chat', { agent: 'assistant', message: '6*7 계산해줘' });
    expect(res.body).toMatchObject({ response: '42입니다.', error: null });
  });

  it('contract-qa stops at CONTRACT_QA_MAX_ITERATIONS', async () => {
    model.setResponder((req) =>
      String(req.messages[0]?.content).includes('충분성')
        ? { json: { is_sufficient: false, reasoning: '부족', missing_info: '더' } }
        : { content: '수집한 조항으로 답합니다.' },
    );
    const res = await http(svc.url, 'POST', '/v1/chat', { agent: 'contract-qa', contract_id: contractId, message: '해지 조건이 뭐야?' });
    expect(res.body.metadata.iterations).toBe(2);
  });
});
