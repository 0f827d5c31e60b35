import { TEST_PG_URL, TEST_PGBOUNCER } from '../support/infra';
import { type PgBouncer, startPgBouncer } from '../support/pgbouncer';
import { TcpProxy } from '../support/tcp-proxy';
import { http, waitFor } from '../support/test-app';
import { Harness, historyOf, weatherResponder } from './support/harness';

/**
 * Postgres connections reset and refused for a while (a restart, seen through a TCP proxy): readiness answers
 * 503 meanwhile, writes retry with backoff, turns interrupted by a failed checkpoint write are handed back and
 * resume — every run ends `completed` once, with its two messages, none lost. In the PgBouncer tier the
 * service talks to a PgBouncer of this file's own in front of the proxy: Postgres goes away behind it.
 */
describe('Postgres connection reset', () => {
  const proxy = new TcpProxy('127.0.0.1', 5432);
  const h = new Harness();
  let bouncer: PgBouncer | undefined;

  beforeAll(async () => {
    await proxy.start();
    if (TEST_PGBOUNCER) {
      const behind = new URL(TEST_PG_URL);
      behind.port = String(proxy.port);
      bouncer = await startPgBouncer(behind.toString());
    }
    await h.start('pgreset', {}, {}, bouncer?.port ?? proxy.port);
    h.model.setResponder(weatherResponder);
  });

  afterAll(async () => {
    proxy.restore();
    await h.stop();
    await bouncer?.stop();
    await proxy.stop();
  });

  it('runs in flight and runs accepted during the outage all complete once; ready is 503 meanwhile', async () => {
    await h.startWorker();
    h.model.latencyMs = 800;
    const inFlight = [];
    for (let i = 0; i < 4; i++) inFlight.push((await h.submit(`in flight ${i}`)).body);
    await waitFor(async () => (h.model.callCount >= 4 ? true : undefined));

    proxy.cut();
    const down = await waitFor(async () => {
      const r = await http(h.api.url, 'GET', '/health/ready');
      return r.status === 503 ? r : undefined;
    });
    expect(down.body.checks.database.status).toBe('down');
    // a turn accepted while the database is away: the API retries its write and answers once it is back
    const during = h.submit('accepted during the outage');
    await new Promise((r) => setTimeout(r, 2000)); // the outage lasts two seconds
    proxy.restore();
    h.model.latencyMs = 0;

    const late = await during;
    expect({ status: late.status, body: late.body }).toEqual(expect.objectContaining({ status: 202 }));
    await waitFor(async () => ((await http(h.api.url, 'GET', '/health/ready')).status === 200 ? true : undefined));
    const jobs = [...inFlight, late.body];
    const rows = await h.allEnded(
      jobs.map((j) => j.job_id),
      40_000,
    );
    // a run that did not complete shows its error (code and message) in the failure, not only its status
    expect(rows.map((r) => (r.status === 'completed' ? 'completed' : { status: r.status, error: r.error }))).toEqual(
      jobs.map(() => 'completed'),
    );
    for (const j of jobs) expect(await h.messages(j.session_id)).toHaveLength(2);
    for (let i = 0; i < 4; i++) {
      const requests = h.model.requests.filter((r) => historyOf(r).user.includes(`in flight ${i}`));
      expect(requests.length).toBeGreaterThanOrEqual(1);
      for (const r of requests) expect(historyOf(r).user).toEqual([`in flight ${i}`]); // one copy, also when resumed
    }
    // the turns whose checkpoint write failed were handed back and resumed, not failed
    expect(h.workers[0].logs).toContain('run handed back');
    const stuck = await h.query(`SELECT count(*)::int AS n FROM runs WHERE status IN ('queued', 'running')`);
    expect(stuck[0].n).toBe(0);
  });
});
