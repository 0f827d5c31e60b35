import type { ScriptedReply } from '../support/model-server';
import { waitFor } from '../support/test-app';
import { Harness, weatherResponder } from './support/harness';

/**
 * The model endpoint answers 500 to everything for a while: every run accepted meanwhile ends (failed with
 * MODEL_UNAVAILABLE, or a degraded answer) exactly once — not retried forever, not left running — every call
 * that reached the endpoint is counted once, and runs after the storm are answered normally.
 */
describe('model 500 storm', () => {
  const h = new Harness();

  beforeAll(async () => {
    // the circuit breaker opens during the storm; a short cool-down lets the calm phase probe and close it
    await h.start('storm', { DEFAULT_AGENT: 'react', LLM_BREAKER_COOLDOWN_MS: '300' });
  });

  afterAll(async () => {
    await h.stop();
  });

  it('ends every run once during the storm and recovers after it', async () => {
    let storm = true;
    h.model.setResponder((req): ScriptedReply => (storm ? { fault: 'http_500' } : weatherResponder(req)));
    await h.startWorker();
    const during = [];
    for (let i = 0; i < 10; i++) during.push((await h.submit(`storm question ${i}`)).body);
    const ended = await h.allEnded(during.map((j) => j.job_id));

    for (const run of ended) {
      expect(run.attempts).toBe(1);
      if (run.status === 'failed') expect(run.error.code).toBe('MODEL_UNAVAILABLE');
      else expect(run.result.metadata.degraded).toBe(true);
      expect(await h.messages(run.session_id)).toHaveLength(2);
    }
    const counted = ended.reduce((n, r) => n + r.llm_calls, 0);
    expect(counted).toBe(h.model.callCount); // each call that reached the endpoint, once

    storm = false;
    // the breaker opened during the storm: turns fail fast until its cool-down has passed and a probe succeeds
    await waitFor(async () => {
      const [probe] = await h.allEnded([(await h.submit('calm probe')).body.job_id]);
      return probe.status === 'completed' ? probe : undefined;
    }, 20_000);
    const after = [];
    for (let i = 0; i < 3; i++) after.push((await h.submit(`calm question ${i}`)).body);
    const calm = await h.allEnded(after.map((j) => j.job_id));
    expect(calm.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    for (const r of calm) expect(r.result.response).toContain('calm question');
    expect(h.workers.every((w) => w.alive)).toBe(true);
  });
});
