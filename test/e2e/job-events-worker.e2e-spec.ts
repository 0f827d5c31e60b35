import { Queue } from 'bullmq';

import { redisOptions } from '../../src/config/redis-options';
import { RUNS_QUEUE } from '../../src/runs/run.job';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase, uniqueQueuePrefix } from '../support/infra';
import { ScriptedModelServer } from '../support/model-server';
import { http, type RunningApp, startApp, waitFor } from '../support/test-app';
import { WorkerProcess } from '../support/worker-process';

interface SseEvent {
  id?: string;
  event: string;
  data: any;
}

/** Reads an SSE response block by block; `onEvent` returning true stops reading (the client goes away). */
async function readSse(res: Response, onEvent: (e: SseEvent) => boolean | void, stop: AbortController): Promise<void> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        if (!event) continue;
        const e = { id: /^id: (.*)$/m.exec(block)?.[1], event, data: JSON.parse(/^data: (.*)$/m.exec(block)![1]) };
        if (onEvent(e)) {
          stop.abort();
          return;
        }
      }
    }
  } catch (err) {
    if (!stop.signal.aborted) throw err;
  }
}

/**
 * A queued run executed by a separate worker process, followed over `GET /v1/jobs/{id}/events` on the API
 * process through the Redis event bus: the client disconnects mid-run and reconnects with `Last-Event-ID`.
 */
describe('job events across processes (Redis event bus)', () => {
  const model = new ScriptedModelServer();
  let db: TestDatabase;
  let api: RunningApp;
  let worker: WorkerProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    await model.start();
    db = await createTestDatabase('job_events');
    env = {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: uniqueQueuePrefix('job_events'),
      LLM_BASE_URL: model.baseUrl,
      LLM_MODEL: 'm',
      LLM_MAX_RETRIES: '0',
      LLM_CACHE: 'false',
      LOG_LEVEL: 'error',
    };
    api = await startApp({ ...env, RUN_WORKER: 'false' });
    worker = await WorkerProcess.start({ ...env, LOG_LEVEL: 'log' });
  });

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    const q = new Queue(RUNS_QUEUE, { connection: redisOptions(TEST_REDIS_URL), prefix: env.QUEUE_PREFIX });
    await q.obliterate({ force: true }).catch(() => undefined);
    await q.close();
    await model.stop();
    await db?.drop();
  });

  it('resumes after Last-Event-ID: no event twice, none missing, ends with the result', async () => {
    model.latencyMs = 400;
    model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] }, { content: 'Six times seven is 42.' });
    const sub = await http(api.url, 'POST', '/v1/jobs', { message: 'What is six times seven?', agent: 'react' });
    expect(sub.status).toBe(202);
    const jobId = sub.body.job_id as string;

    // first connection: read until the first node's progress, then go away while the run goes on
    const first: SseEvent[] = [];
    const gone = new AbortController();
    const res1 = await fetch(`${api.url}/v1/jobs/${jobId}/events`, { signal: gone.signal });
    expect(res1.status).toBe(200);
    await readSse(res1, (e) => (first.push(e), e.event === 'status' && e.data.progress?.step === 1), gone);
    const lastId = first.at(-1)!.id;
    expect(lastId).toMatch(/^\d+-\d+$/);

    // the run moves on while nobody listens: the second model call starts after LlmNode and ToolNode
    await waitFor(async () => (model.callCount >= 2 ? true : undefined));

    const second: SseEvent[] = [];
    const res2 = await fetch(`${api.url}/v1/jobs/${jobId}/events`, { headers: { 'last-event-id': lastId! } });
    expect(res2.status).toBe(200);
    await readSse(res2, (e) => void second.push(e), new AbortController());
    model.latencyMs = 0;

    const all = [...first, ...second];
    const ids = all.map((e) => e.id).filter(Boolean);
    expect(new Set(ids).size).toBe(ids.length); // no event twice
    const nodes = all
      .filter((e) => e.event === 'status' && e.data.status === 'running' && e.data.progress)
      .map((e) => `${e.data.progress.step}:${e.data.progress.node}`);
    expect(nodes).toEqual(['1:InputNode', '2:LlmNode', '3:ToolNode', '4:LlmNode', '5:ResponseNode']); // none missing
    expect(second.some((e) => e.event === 'status' && e.data.progress?.step === 2)).toBe(true); // replayed from the window
    const statuses = all.filter((e) => e.event === 'status').map((e) => e.data.status);
    expect(statuses.at(-1)).toBe('completed');
    expect(second.at(-1)).toMatchObject({ event: 'result', data: { response: 'Six times seven is 42.', run_id: jobId } });
    expect(second.at(-1)!.id).toMatch(/^\d+-\d+$/);

    // after the end: a new follower gets the stored state at once
    const after = await (await fetch(`${api.url}/v1/jobs/${jobId}/events`)).text();
    expect(after).toContain('"status":"completed"');
    expect(after).toContain('event: result');
  });
});
