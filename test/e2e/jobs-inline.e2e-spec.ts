import { useService } from '../support/service-fixture';
import { http, waitFor } from '../support/test-app';

/** Queued runs without Redis: the in-process queue, with the same records and API as BullMQ. */
describe('jobs on the in-process queue (no REDIS_URL)', () => {
  const svc = useService('jobs_inline', {
    env: { LLM_MODEL: 'm', LLM_MAX_RETRIES: '0', WORKER_CONCURRENCY: '4', LLM_CACHE: 'false' },
    model: { resetEach: true },
  });
  const { model } = svc;

  beforeEach(() => {
    model.latencyMs = 0;
  });

  const finished = (id: string) =>
    waitFor(async () => {
      const r = await http(svc.url, 'GET', `/v1/jobs/${id}`);
      return ['completed', 'failed', 'cancelled'].includes(r.body.status) ? r.body : undefined;
    });

  it('accepts a job with 202, runs it, and serves the result by job id and by session id', async () => {
    model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '2^10' } }] }, { content: '2^10 is 1024.' });
    const sub = await http(svc.url, 'POST', '/v1/jobs', { message: 'What is two to the tenth?' });
    expect(sub.status).toBe(202);
    expect(sub.body).toEqual({ job_id: expect.any(String), session_id: expect.any(String), status: 'queued' });

    const job = await finished(sub.body.job_id);
    expect(job).toMatchObject({ job_id: sub.body.job_id, session_id: sub.body.session_id, status: 'completed' });
    expect(job.result).toMatchObject({ response: '2^10 is 1024.', tools_used: ['calculator'], llm_calls: 2 });
    expect(Date.parse(job.started_at)).toBeGreaterThanOrEqual(Date.parse(job.created_at));
    expect(Date.parse(job.finished_at)).toBeGreaterThanOrEqual(Date.parse(job.started_at));

    const bySession = await http(svc.url, 'GET', `/v1/sessions/${sub.body.session_id}/result`);
    expect(bySession.status).toBe(200);
    expect(bySession.body).toEqual(job.result);
  });

  it('cancels a queued-or-running job and records it as cancelled', async () => {
    model.latencyMs = 1500;
    model.setResponder(() => ({ content: 'too late' }));
    const sub = await http(svc.url, 'POST', '/v1/jobs', { message: 'slow question' });
    await waitFor(async () => (model.callCount > 0 ? true : undefined));
    const cancel = await http(svc.url, 'POST', `/v1/jobs/${sub.body.job_id}/cancel`);
    expect(cancel.status).toBe(200);
    const job = await finished(sub.body.job_id);
    model.setResponder(undefined);
    expect(job.status).toBe('cancelled');
    expect(job.result.error.code).toBe('CANCELLED');
    const again = await http(svc.url, 'POST', `/v1/jobs/${sub.body.job_id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('JOB_ALREADY_FINISHED');
  });

  it('runs queued turns of one session in order, one at a time', async () => {
    model.latencyMs = 100;
    model.setResponder((req) => ({ content: `answer to: ${req.messages.at(-1)?.content}` }));
    const first = await http(svc.url, 'POST', '/v1/jobs', { message: 'one' });
    const second = await http(svc.url, 'POST', '/v1/jobs', { message: 'two', session_id: first.body.session_id });
    const third = await http(svc.url, 'POST', '/v1/jobs', { message: 'three', session_id: first.body.session_id });
    const jobs = [await finished(first.body.job_id), await finished(second.body.job_id), await finished(third.body.job_id)];
    model.setResponder(undefined);
    expect(jobs.map((j) => j.status)).toEqual(['completed', 'completed', 'completed']);
    for (let i = 1; i < jobs.length; i++) {
      expect(Date.parse(jobs[i].finished_at)).toBeGreaterThanOrEqual(Date.parse(jobs[i - 1].finished_at));
    }
    const session = await http(svc.url, 'GET', `/v1/sessions/${first.body.session_id}`);
    expect(session.body.messages.map((m: any) => m.content)).toEqual([
      'one',
      'answer to: one',
      'two',
      'answer to: two',
      'three',
      'answer to: three',
    ]);
  });

  it('answers unknown and malformed job ids with 404', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await http(svc.url, 'GET', `/v1/jobs/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('JOB_NOT_FOUND');
      expect((await http(svc.url, 'POST', `/v1/jobs/${id}/cancel`)).status).toBe(404);
    }
  });
});
