import type { ScriptedReply } from '../support/model-server';
import { waitFor } from '../support/test-app';
import type { WorkerProcess } from '../support/worker-process';
import { Harness, historyOf, weatherResponder } from './support/harness';

const LOCK_MS = 3000;
const STALL_MS = 1500;
const KILLS = 3;

/**
 * The README's promise: a SIGKILLed worker's run is started again by another worker within RUN_LOCK_MS +
 * RUN_STALLED_CHECK_MS. KILLS + 1 workers; each run's first model call never answers, and the worker that made
 * it (each asks for a model named after itself) is killed at a random moment of its lock and lease renewals.
 * bench/takeover.ts does the same 20 times at the default settings.
 */
describe('takeover after SIGKILL, within RUN_LOCK_MS + RUN_STALLED_CHECK_MS', () => {
  const h = new Harness();
  /** worker i, which asks for the model `worker-i` (started together: `h.workers` lists them as they became ready) */
  let workers: WorkerProcess[] = [];

  beforeAll(async () => {
    await h.start('takeover', { RUN_LOCK_MS: String(LOCK_MS), RUN_STALLED_CHECK_MS: String(STALL_MS) });
    workers = await Promise.all(Array.from({ length: KILLS + 1 }, (_, i) => h.startWorker({ LLM_MODEL: `worker-${i}` })));
  }, 120_000);

  afterAll(async () => {
    await h.stop();
  });

  it(`${KILLS} kills: each run started again within ${(LOCK_MS + STALL_MS) / 1000} s, completed, its tool run once`, async () => {
    const holders = new Map<string, number>(); // a run's message → the worker whose call was left hanging
    h.model.setResponder((req): ScriptedReply => {
      const message = historyOf(req).user.join();
      if (holders.has(message)) return weatherResponder(req);
      holders.set(message, Number(req.model.replace('worker-', '')));
      return { fault: 'hang' };
    });
    const took: number[] = [];
    for (let k = 1; k <= KILLS; k++) {
      const city = `City${k}`;
      const job = (await h.submit(`weather in ${city}`)).body;
      const holder = await waitFor(async () => holders.get(`weather in ${city}`));
      await new Promise((r) => setTimeout(r, Math.random() * LOCK_MS)); // any phase of the renewals
      const killedAt = Date.now();
      workers[holder].kill('SIGKILL');
      await waitFor(
        async () => ((await h.query(`SELECT attempts FROM runs WHERE id = $1`, [job.job_id]))[0].attempts >= 2 ? true : undefined),
        15_000,
        20,
      );
      took.push(Date.now() - killedAt);
      const [run] = await h.allEnded([job.job_id]);
      expect(run).toMatchObject({ status: 'completed', attempts: 2 });
      expect(run.result.response).toBe(`날씨를 확인했습니다: ${city}`);
      expect(h.weather.count(city)).toBe(1);
    }
    expect(new Set(holders.values()).size).toBe(KILLS); // each kill took a live worker down
    expect(took.filter((ms) => ms > LOCK_MS + STALL_MS)).toEqual([]); // on failure: the kills over the bound, in ms
  });
});
