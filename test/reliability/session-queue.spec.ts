import { http, startApp, waitFor } from '../support/test-app';
import { Harness, weatherResponder } from './support/harness';

/**
 * 20 queued turns on one session and turns of other sessions on one worker with concurrency 8: waiting for
 * the session's lease does not hold a worker slot (the others finish without waiting behind the 20), the
 * session's turns run one at a time in acceptance order, and a waiting turn is `queued`, not `running`.
 */
describe('many turns on one session', () => {
  const h = new Harness();

  beforeAll(async () => {
    await h.start('session_queue', { WORKER_CONCURRENCY: '8', DEFAULT_AGENT: 'react' });
    h.model.setResponder(weatherResponder);
    h.model.latencyMs = 150;
  });

  afterAll(async () => {
    await h.stop();
  });

  it('serializes one session in acceptance order without blocking other sessions', async () => {
    await h.startWorker();
    const first = (await h.submit('turn 0')).body;
    const same = [first];
    for (let i = 1; i < 20; i++) same.push((await h.submit(`turn ${i}`, { session_id: first.session_id })).body);
    const others = [];
    for (let i = 0; i < 6; i++) others.push((await h.submit(`other ${i}`)).body);

    // while they run: never more than one of the session's turns `running`
    let maxRunning = 0;
    const ids = [...same, ...others].map((j) => j.job_id);
    await waitFor(
      async () => {
        const rows = await h.query(`SELECT status FROM runs WHERE session_id = $1`, [first.session_id]);
        maxRunning = Math.max(maxRunning, rows.filter((r) => r.status === 'running').length);
        return rows.every((r) => r.status === 'completed') ? true : undefined;
      },
      55_000,
      30,
    );
    const rows = await h.allEnded(ids);
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(rows.every((r) => r.status === 'completed')).toBe(true);
    expect(maxRunning).toBe(1);

    const session = same.map((j) => byId.get(j.job_id));
    for (let i = 1; i < session.length; i++) {
      // one after the other, in the order accepted: a turn's graph starts after the previous one ended
      expect(session[i].started_at.getTime()).toBeGreaterThanOrEqual(session[i - 1].finished_at.getTime());
    }
    const lastOfSession = session[session.length - 1].finished_at.getTime();
    const tenthOfSession = session[9].finished_at.getTime();
    for (const o of others.map((j) => byId.get(j.job_id))) {
      expect(o.finished_at.getTime()).toBeLessThan(tenthOfSession);
      expect(o.finished_at.getTime() - o.created_at.getTime()).toBeLessThan(3000);
    }
    expect(lastOfSession).toBeGreaterThan(tenthOfSession);
    const history = await h.messages(first.session_id);
    expect(history.filter((m) => m.startsWith('user:'))).toEqual(same.map((_, i) => `user:turn ${i}`));
  });

  it('without Redis (in-process queue) too: waiting turns do not hold the WORKER_CONCURRENCY slots', async () => {
    const inline = await startApp({
      DATABASE_URL: h.db.url,
      LLM_BASE_URL: h.model.baseUrl,
      LLM_MODEL: 'm',
      LLM_CACHE: 'false',
      WORKER_CONCURRENCY: '2',
      DEFAULT_AGENT: 'react',
    });
    try {
      const post = (body: Record<string, unknown>) => http(inline.url, 'POST', '/v1/jobs', body).then((r) => r.body);
      const first = await post({ message: 'inline turn 0' });
      const same = [first];
      for (let i = 1; i < 6; i++) same.push(await post({ message: `inline turn ${i}`, session_id: first.session_id }));
      const others = [await post({ message: 'inline other 0' }), await post({ message: 'inline other 1' })];
      const rows = await h.allEnded([...same, ...others].map((j) => j.job_id));
      const byId = new Map(rows.map((r) => [r.id, r]));
      expect(rows.every((r) => r.status === 'completed')).toBe(true);
      const thirdOfSession = byId.get(same[2].job_id).finished_at.getTime();
      for (const o of others) expect(byId.get(o.job_id).finished_at.getTime()).toBeLessThan(thirdOfSession);
      for (let i = 1; i < same.length; i++) {
        expect(byId.get(same[i].job_id).started_at.getTime()).toBeGreaterThanOrEqual(byId.get(same[i - 1].job_id).finished_at.getTime());
      }
    } finally {
      await inline.close();
    }
  });
});
