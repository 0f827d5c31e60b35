import { useService } from '../support/service-fixture';

/**
 * Bounded schedules (issue #23): a run's `after_seconds` within RUN_MAX_DELAY_S (1e300 and 8.64e15 were a 500,
 * 1e12 was accepted and left the thread busy, every later run 409, until cancelled); crons at most every
 * CRON_MIN_INTERVAL_S (one cron made 11 runs in 10.5 s), at most CRON_MAX_PER_TENANT per tenant, and their webhook
 * checked when they are made (a loopback one was accepted, then refused at each tick).
 */
const T1 = 'tenant-one-key-0123456789';
const T2 = 'tenant-two-key-0123456789';
const INPUT = { messages: [{ role: 'user', content: '2+2' }] };
const NEVER_SOON = '0 0 1 1 *';

describe('bounded schedules', () => {
  const svc = useService('bounded_schedules', {
    env: { API_KEYS: `t1:${T1},t2:${T2}`, DEFAULT_AGENT: 'react', RUN_MAX_DELAY_S: '3600', CRON_MAX_PER_TENANT: '2' },
  });

  /** JSON over HTTP as a tenant's key */
  async function as(key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${svc.url}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  const limitError = (res: { status: number; body: any }, code: string, setting: string, limit: number) => {
    expect({ status: res.status, code: res.body?.error?.code, details: res.body?.error?.details }).toEqual({
      status: 422,
      code,
      details: { setting, limit },
    });
    expect(res.body.error.message).toContain(`(${setting})`);
  };

  describe('after_seconds', () => {
    it.each([1e300, 8.64e15, 1e12, 3601])('after_seconds %d is 422 RUN_DELAY_TOO_LONG, and the thread stays free', async (delay) => {
      const thread = (await as(T1, 'POST', '/threads', {})).body.thread_id as string;
      const res = await as(T1, 'POST', `/threads/${thread}/runs`, { assistant_id: 'react', input: INPUT, after_seconds: delay });
      limitError(res, 'RUN_DELAY_TOO_LONG', 'RUN_MAX_DELAY_S', 3600);
      const next = await as(T1, 'POST', `/threads/${thread}/runs/wait`, { assistant_id: 'react', input: INPUT });
      expect(next.status).toBe(200);
      expect(JSON.stringify(next.body)).toContain('4');
    });

    it('a delay within RUN_MAX_DELAY_S is accepted and pending', async () => {
      const thread = (await as(T1, 'POST', '/threads', {})).body.thread_id as string;
      const res = await as(T1, 'POST', `/threads/${thread}/runs`, { assistant_id: 'react', input: INPUT, after_seconds: 3600 });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('pending');
      expect((await as(T1, 'POST', `/threads/${thread}/runs/${res.body.run_id}/cancel`)).status).toBeLessThan(300);
    });
  });

  describe('crons', () => {
    afterEach(async () => {
      for (const key of [T1, T2]) {
        const crons = (await as(key, 'POST', '/runs/crons/search', { limit: 100 })).body as Array<{ cron_id: string }>;
        for (const c of crons) await as(key, 'DELETE', `/runs/crons/${c.cron_id}`);
      }
    });

    it('a schedule ticking more often than CRON_MIN_INTERVAL_S (60 s by default) is 422 CRON_TOO_FREQUENT', async () => {
      for (const schedule of ['* * * * * *', '*/30 * * * * *', '0,10 * * * * *']) {
        limitError(
          await as(T1, 'POST', '/runs/crons', { assistant_id: 'react', schedule, input: INPUT }),
          'CRON_TOO_FREQUENT',
          'CRON_MIN_INTERVAL_S',
          60,
        );
      }
      const everyMinute = await as(T1, 'POST', '/runs/crons', { assistant_id: 'react', schedule: '* * * * *', input: INPUT });
      expect(everyMinute.status).toBe(200);
      // nor can a patch make it faster; other changes to it still go through
      const id = everyMinute.body.cron_id as string;
      limitError(await as(T1, 'PATCH', `/runs/crons/${id}`, { schedule: '*/5 * * * * *' }), 'CRON_TOO_FREQUENT', 'CRON_MIN_INTERVAL_S', 60);
      expect((await as(T1, 'PATCH', `/runs/crons/${id}`, { enabled: false })).status).toBe(200);
      expect((await as(T1, 'POST', '/runs/crons/search', {})).body.map((c: { schedule: string }) => c.schedule)).toEqual(['* * * * *']);
    });

    it('a tenant has at most CRON_MAX_PER_TENANT crons; another tenant is not counted', async () => {
      for (let i = 0; i < 2; i++) {
        expect((await as(T1, 'POST', '/runs/crons', { assistant_id: 'react', schedule: NEVER_SOON, input: INPUT })).status).toBe(200);
      }
      const third = await as(T1, 'POST', '/runs/crons', { assistant_id: 'react', schedule: NEVER_SOON, input: INPUT });
      limitError(third, 'CRON_LIMIT_REACHED', 'CRON_MAX_PER_TENANT', 2);
      expect((await as(T1, 'POST', '/runs/crons/count', {})).body).toBe(2);
      expect((await as(T2, 'POST', '/runs/crons', { assistant_id: 'react', schedule: NEVER_SOON, input: INPUT })).status).toBe(200);
    });

    it('concurrent creations do not pass the cap together', async () => {
      const made = await Promise.all(
        Array.from({ length: 6 }, () => as(T1, 'POST', '/runs/crons', { assistant_id: 'react', schedule: NEVER_SOON, input: INPUT })),
      );
      expect(made.map((r) => r.status).sort()).toEqual([200, 200, 422, 422, 422, 422]);
      expect((await as(T1, 'POST', '/runs/crons/count', {})).body).toBe(2);
    });

    it("a loopback webhook is refused when the cron is made or patched (422), as a run's is", async () => {
      const webhook = 'http://127.0.0.1:9/hook';
      const made = await as(T1, 'POST', '/runs/crons', { assistant_id: 'react', schedule: NEVER_SOON, input: INPUT, webhook });
      expect(made.status).toBe(422);
      expect(made.body.error.message).toMatch(/^webhook: .*loopback/);
      const run = await as(T1, 'POST', '/runs', { assistant_id: 'react', input: INPUT, webhook });
      expect({ status: run.status, message: run.body.error.message }).toEqual({ status: 422, message: made.body.error.message });
      const thread = (await as(T1, 'POST', '/threads', {})).body.thread_id as string;
      const onThread = await as(T1, 'POST', `/threads/${thread}/runs/crons`, {
        assistant_id: 'react',
        schedule: NEVER_SOON,
        input: INPUT,
        webhook,
      });
      expect(onThread.status).toBe(422);
      expect(
        (await as(T1, 'POST', '/runs/crons', { assistant_id: 'react', schedule: NEVER_SOON, input: INPUT, webhook: 'not a url' })).status,
      ).toBe(422);
      expect((await as(T1, 'POST', '/runs/crons/count', {})).body).toBe(0);

      const ok = await as(T1, 'POST', '/runs/crons', { assistant_id: 'react', schedule: NEVER_SOON, input: INPUT });
      const patched = await as(T1, 'PATCH', `/runs/crons/${ok.body.cron_id}`, { webhook });
      expect(patched.status).toBe(422);
      expect((await as(T1, 'POST', '/runs/crons/search', {})).body[0].payload.webhook).toBeUndefined();
    });
  });
});
