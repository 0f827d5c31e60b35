import type { ScriptedReply } from '../support/model-server';
import { waitFor } from '../support/test-app';
import { Harness, historyOf, weatherResponder } from './support/harness';

const GRACE_MS = 1500;

/**
 * SIGTERM with runs active: the worker stops taking jobs, lets a turn that finishes within
 * RUN_SHUTDOWN_GRACE_MS finish, hands a longer one back (queued, resumed by the next worker) and exits.
 * Nothing is left `running`, nothing is lost or run twice.
 */
describe('worker stopped with SIGTERM', () => {
  const h = new Harness();

  beforeAll(async () => {
    await h.start('sigterm', { RUN_SHUTDOWN_GRACE_MS: String(GRACE_MS) });
  });

  afterAll(async () => {
    await h.stop();
  });

  it('finishes short turns, hands long ones back, takes no new jobs, and exits', async () => {
    let stuck = true;
    h.model.setResponder((req): ScriptedReply => {
      const user = historyOf(req).user.join(' ');
      if (user.includes('stuck') && stuck) return { fault: 'hang' };
      return weatherResponder(req);
    });
    h.model.latencyMs = 600; // every answer takes a while: the quick turn is mid-call when SIGTERM arrives
    const worker = await h.startWorker();
    const quick = (await h.submit('quick question')).body;
    const long = (await h.submit('stuck question')).body;
    await waitFor(async () => (h.model.callCount >= 2 ? true : undefined));

    const termAt = Date.now();
    worker.kill('SIGTERM');
    await waitFor(async () =>
      (await h.query(`SELECT 1 FROM runs WHERE id = $1 AND status = 'completed'`, [quick.job_id])).length ? true : undefined,
    );
    const late = (await h.submit('submitted during shutdown')).body;
    await worker.exited;
    const exitMs = Date.now() - termAt;

    expect(exitMs).toBeLessThan(GRACE_MS + 3000);
    const after = await h.query(`SELECT id, status, attempts FROM runs ORDER BY created_at`);
    expect(after.filter((r) => r.status === 'running')).toEqual([]);
    expect(after.find((r) => r.id === quick.job_id)).toMatchObject({ status: 'completed', attempts: 1 });
    expect(after.find((r) => r.id === long.job_id)).toMatchObject({ status: 'queued', attempts: 0 }); // handed back
    expect(after.find((r) => r.id === late.job_id)).toMatchObject({ status: 'queued', attempts: 0 }); // not taken

    stuck = false;
    h.model.latencyMs = 0;
    await h.startWorker();
    const rows = await h.allEnded([quick.job_id, long.job_id, late.job_id]);
    expect(rows.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    for (const job of [quick, long, late]) expect(await h.messages(job.session_id)).toHaveLength(2);
    // the long turn asked the model twice (the handed-back call and the resumed one), the others once
    const asked = (text: string) => h.model.requests.filter((r) => historyOf(r).user.includes(text)).length;
    expect([asked('quick question'), asked('stuck question'), asked('submitted during shutdown')]).toEqual([1, 2, 1]);
  });
});
