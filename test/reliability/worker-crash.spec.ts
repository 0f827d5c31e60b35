import type { ChatRequest, ScriptedReply } from '../support/model-server';
import { waitFor } from '../support/test-app';
import { Harness, historyOf, LOCK_MS, STALL_MS, weatherResponder } from './support/harness';

/**
 * A worker process killed with SIGKILL in the middle of a run: another worker takes the job over within
 * lock + stall interval and resumes from the last checkpoint — one copy of the user's message and of each
 * tool result, recorded tool calls not executed again, every answered model call counted once.
 */
describe('worker killed mid-run (SIGKILL)', () => {
  const h = new Harness();

  beforeAll(async () => {
    // a hung tool call must still hang when its worker is killed, however long the standby took to start
    await h.start('crash', { TOOLS_TIMEOUT_MS: '60000' });
  });

  afterAll(async () => {
    await h.stop();
  });

  beforeEach(async () => {
    await h.killWorkers();
    h.model.reset();
    h.weather.hits.clear();
  });

  /** How long after the kill the run was started again by the standby worker. */
  async function takeoverMs(runId: string, killedAt: number): Promise<number> {
    await waitFor(
      async () => ((await h.query(`SELECT attempts FROM runs WHERE id = $1`, [runId]))[0].attempts >= 2 ? true : undefined),
      15_000,
      20,
    );
    return Date.now() - killedAt;
  }

  const lastRequestOf = (message: string): ChatRequest => [...h.model.requests].reverse().find((r) => historyOf(r).user.includes(message))!;

  it('mid-model-call: resumes after the tool step; the tool is not run again; llm_calls counts both answered calls', async () => {
    let hungOnce = false;
    h.model.setResponder((req): ScriptedReply => {
      const afterTools = req.messages[req.messages.length - 1]?.role === 'tool';
      if (afterTools && !hungOnce) {
        hungOnce = true;
        return { fault: 'hang' };
      }
      return weatherResponder(req);
    });
    const first = await h.startWorker();
    const message = 'weather in Seoul';
    const job = (await h.submit(message)).body;
    await waitFor(async () => (hungOnce ? true : undefined));
    const standby = await h.startWorker();

    const killedAt = Date.now();
    first.kill('SIGKILL');
    const took = await takeoverMs(job.job_id, killedAt);
    const [run] = await h.allEnded([job.job_id]);

    expect(took).toBeLessThanOrEqual(LOCK_MS + STALL_MS + 1000);
    expect(run.status).toBe('completed');
    expect(run.result.response).toBe('날씨를 확인했습니다: Seoul');
    expect(h.weather.count('Seoul')).toBe(1);
    // three requests reached the model: the tool decision (attempt 1), the hung one, the answer (attempt 2)
    expect(h.model.callCount).toBe(3);
    expect(run.llm_calls).toBe(2);
    expect(run.trace.model_calls.map((c: { attempt: number }) => c.attempt)).toEqual([1, 2]); // the crashed attempt's call is kept
    const resumed = historyOf(lastRequestOf(message));
    expect(resumed.user).toEqual([message]);
    expect(resumed.toolCallIds).toHaveLength(1);
    expect(await h.messages(job.session_id)).toEqual([`user:${message}`, 'assistant:날씨를 확인했습니다: Seoul']);
    expect(standby.alive).toBe(true);
  });

  it('mid-tool-call: the finished call answers from the ledger, the unfinished one runs again, each result once', async () => {
    h.model.setResponder(weatherResponder);
    h.weather.hang('Busan');
    const first = await h.startWorker();
    const message = 'weather in Seoul and Busan';
    const job = (await h.submit(message)).body;
    await waitFor(async () => {
      const ledger = await h.query(`SELECT tool_call_id FROM tool_ledger WHERE run_id = $1`, [job.job_id]);
      return h.weather.count('Busan') === 1 && ledger.length === 1 ? true : undefined;
    });
    const standby = await h.startWorker();

    const killedAt = Date.now();
    first.kill('SIGKILL');
    await first.exited;
    h.weather.release();
    const took = await takeoverMs(job.job_id, killedAt);
    const [run] = await h.allEnded([job.job_id]);

    expect(took).toBeLessThanOrEqual(LOCK_MS + STALL_MS + 1000);
    expect(run.status).toBe('completed');
    expect(h.weather.count('Seoul')).toBe(1); // recorded before the crash: not executed again
    expect(h.weather.count('Busan')).toBe(2); // never finished: executed again
    expect(h.model.callCount).toBe(2); // the tool decision was checkpointed: not asked again
    expect(run.llm_calls).toBe(2);
    const resumed = historyOf(lastRequestOf(message));
    expect(resumed.user).toEqual([message]);
    expect(new Set(resumed.toolCallIds).size).toBe(2);
    expect(resumed.toolCallIds).toHaveLength(2);
    const ledger = await h.query(`SELECT count(*)::int AS n FROM tool_ledger WHERE run_id = $1`, [job.job_id]);
    expect(ledger[0].n).toBe(2);
    expect(await h.messages(job.session_id)).toHaveLength(2);
    expect(standby.alive).toBe(true);
  });

  it('a run that kills its worker every time ends failed after RUN_MAX_ATTEMPTS (3), never loops', async () => {
    h.model.setResponder((req) => (historyOf(req).user.some((u) => u.includes('POISON')) ? { fault: 'hang' } : weatherResponder(req)));
    const job = (await h.submit('POISON input')).body;
    const other = (await h.submit('an innocent question')).body;
    let kills = 0;
    for (;;) {
      const worker = await h.startWorker();
      // the innocent run (other session) finishes on the first worker; the poison one hangs it
      const row = await waitFor(async () => {
        const [r] = await h.query(`SELECT status FROM runs WHERE id = $1`, [job.job_id]);
        const [o] = await h.query(`SELECT status FROM runs WHERE id = $1`, [other.job_id]);
        const poisonSeen = h.model.requests.filter((q) => historyOf(q).user.includes('POISON input')).length > kills;
        return r.status === 'failed' || (poisonSeen && o.status !== 'running') ? r : undefined;
      }, 15_000);
      if (row.status === 'failed') break;
      worker.kill('SIGKILL'); // the poison input "crashes" the worker that runs it
      await worker.exited;
      kills++;
      expect(kills).toBeLessThanOrEqual(3);
    }
    const [poison, innocent] = await h.allEnded([job.job_id, other.job_id]);
    const byId = Object.fromEntries([poison, innocent].map((r) => [r.id, r]));
    expect(byId[job.job_id]).toMatchObject({ status: 'failed', attempts: 3, error: { code: 'RUN_ATTEMPTS_EXHAUSTED' } });
    expect(byId[other.job_id]).toMatchObject({ status: 'completed', error: null });
    expect(kills).toBe(3);
    expect(h.model.requests.filter((q) => historyOf(q).user.includes('POISON input'))).toHaveLength(3);
  });
});
