import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { http, type RunningApp, startApp, waitFor } from '../support/test-app';

/**
 * The zero-setup default: no DATABASE_URL (embedded Postgres in DATA_DIR), no REDIS_URL (in-process queue),
 * no model (rules and tool outputs only). A restart on the same DATA_DIR keeps every conversation.
 */
describe('embedded defaults with no model configured', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'agents-embedded-'));
  let svc: RunningApp | undefined;

  afterAll(async () => {
    await svc?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts, answers by rules, queues jobs in-process, and keeps sessions across a restart', async () => {
    svc = await startApp({ DATA_DIR: dataDir, DEFAULT_TIMEZONE: 'Asia/Seoul' });

    const ready = await http(svc.url, 'GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: 'ok',
      queue: 'inline',
      checks: { database: { status: 'up' }, model: { status: 'not_configured' } },
    });

    const calc = await http(svc.url, 'POST', '/v1/chat', { message: '3 * (4 + 5)' });
    expect(calc.status).toBe(200);
    expect(calc.body).toMatchObject({ response: '3 * (4 + 5) = 27', llm_calls: 0, metadata: { model_used: false, model: null } });

    const time = await http(svc.url, 'POST', '/v1/chat', { message: '지금 몇 시야?', session_id: calc.body.session_id });
    expect(time.body.tools_used).toEqual(['get_current_datetime']);
    expect(time.body.response).toMatch(/^Asia\/Seoul 기준 지금은 \d{4}년 \d{1,2}월 \d{1,2}일 .요일 \d{2}시 \d{2}분\(UTC\+09:00\)입니다\.$/);

    const sentence = await http(svc.url, 'POST', '/v1/chat', { message: 'What is (12 + 3) * 4?' });
    expect(sentence.body).toMatchObject({ response: '(12 + 3) * 4 is 60.', error: null, metadata: { model_used: false } });

    const other = await http(svc.url, 'POST', '/v1/chat', { message: 'Tell me a story', session_id: calc.body.session_id });
    expect(other.body.response).toMatch(/No language model is configured/);
    expect(other.body.error).toBeNull();

    const job = await http(svc.url, 'POST', '/v1/jobs', { message: '100 / 8', session_id: calc.body.session_id });
    expect(job.status).toBe(202);
    const done = await waitFor(async () => {
      const r = await http(svc!.url, 'GET', `/v1/jobs/${job.body.job_id}`);
      return r.body.status === 'completed' ? r.body : undefined;
    });
    expect(done.result.response).toBe('100 / 8 = 12.5');

    await svc.close();
    svc = await startApp({ DATA_DIR: dataDir, DEFAULT_TIMEZONE: 'Asia/Seoul' });

    const session = await http(svc.url, 'GET', `/v1/sessions/${calc.body.session_id}`);
    expect(session.status).toBe(200);
    expect(session.body.messages).toHaveLength(8);
    expect(session.body.runs.map((r: any) => r.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    const result = await http(svc.url, 'GET', `/v1/sessions/${calc.body.session_id}/result`);
    expect(result.body.response).toBe('100 / 8 = 12.5');
    const next = await http(svc.url, 'POST', '/v1/chat', { message: '2^8', session_id: calc.body.session_id });
    expect(next.body.response).toBe('2^8 = 256');

    // multi-step agents checkpoint after every node while their nodes query: on PGlite all of it must share one
    // connection (interleaved connections used to hang this turn until RUN_TIMEOUT_MS)
    const contract = readFileSync(join(__dirname, '..', 'fixtures', 'contracts', 'service-agreement.md'), 'utf8');
    const up = await http(svc.url, 'POST', '/v1/contracts', { title: '용역계약', content: contract });
    const qa = await http(svc.url, 'POST', '/v1/chat', {
      agent: 'contract-qa',
      contract_id: up.body.contract_id,
      message: '해지 조건이 뭐야?',
    });
    expect(qa.body.error).toBeNull();
    expect(qa.body.response).toMatch(/\[제10조 계약의 해지\]/);
    expect(qa.body.execution_time_ms).toBeLessThan(10_000);
    const jobs = await Promise.all(
      ['3+4', '5*6', '7-1'].map((m) => http(svc!.url, 'POST', '/v1/jobs', { agent: 'plan-execute', message: m })),
    );
    for (const j of jobs) {
      const done = await waitFor(async () => {
        const r = await http(svc!.url, 'GET', `/v1/jobs/${j.body.job_id}`);
        return ['completed', 'failed'].includes(r.body.status) ? r.body : undefined;
      });
      expect(done.status).toBe('completed');
    }
  }, 120_000);
});
