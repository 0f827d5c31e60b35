import path from 'node:path';

import { Client } from '@langchain/langgraph-sdk';
import { Queue } from 'bullmq';

import { redisOptions } from '../../src/config/redis-options';
import { systemAssistantId } from '../../src/langgraph-api/assistants/assistants.service';
import { RUNS_QUEUE } from '../../src/runs/run.job';
import { TEST_REDIS_URL } from '../support/infra';
import { freePort } from '../support/main-process';
import { useService } from '../support/service-fixture';
import { startApp, waitFor } from '../support/test-app';
import { WorkerProcess } from '../support/worker-process';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'graphs');

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of it) out.push(e);
  return out;
}

/** With REDIS_URL: a BullMQ worker executes the run and its stream reaches the API through Redis streams. */
describe('LangGraph API: runs through BullMQ and Redis', () => {
  const svc = useService('lgruns_redis', { redis: true, env: { LANGGRAPH_CONFIG: path.join(FIXTURES, 'langgraph.runs.json') } });
  let client: Client;

  beforeAll(() => {
    client = new Client({ apiUrl: svc.url, callerOptions: { maxRetries: 0 } });
  });

  it('streams a queued run and resumes an interrupt with a command', async () => {
    const thread = await client.threads.create();
    const events = await collect(client.runs.stream(thread.thread_id, 'slow', { input: { ms: 20 }, streamMode: ['custom', 'updates'] }));
    expect(events[0].event).toBe('metadata');
    expect(events.filter((e) => e.event === 'custom')).toHaveLength(10);
    expect(events.filter((e) => e.event === 'updates').length).toBeGreaterThanOrEqual(10);

    const t2 = await client.threads.create();
    const paused = (await client.runs.wait(t2.thread_id, 'hitl', { input: { messages: [{ type: 'human', content: 'x' }] } })) as any;
    expect(paused.__interrupt__).toHaveLength(1);
    const done = (await client.runs.wait(t2.thread_id, 'hitl', { command: { resume: 'ok' } })) as any;
    expect(done.answer).toBe('ok');
  });

  it('the first run of a thread whose state was set before any run starts from that state', async () => {
    // a wait run starts in this process with its row; a fresh thread's first run skips the checkpoint read, which
    // must not apply to a thread with a state but no runs
    const thread = await client.threads.create({ graphId: 'echo' });
    await client.threads.updateState(thread.thread_id, {
      values: { messages: [{ type: 'human', content: 'earlier' }] },
      asNode: 'respond',
    });
    const values = (await client.runs.wait(thread.thread_id, 'echo', { input: { messages: [{ type: 'human', content: 'now' }] } })) as {
      messages: any[];
    };
    expect(values.messages.map((m) => m.content)).toEqual(['earlier', 'now', 'echo #2: now']);
    const bare = await client.threads.create();
    const first = (await client.runs.wait(bare.thread_id, 'echo', { input: { messages: [{ type: 'human', content: 'hi' }] } })) as {
      messages: any[];
    };
    expect(first.messages.map((m) => m.content)).toEqual(['hi', 'echo #1: hi']);
    expect(await client.threads.get(bare.thread_id)).toMatchObject({
      metadata: { assistant_id: systemAssistantId('echo'), graph_id: 'echo' },
    });
  });

  it('after_seconds: a delayed BullMQ job, the run pending until then', async () => {
    const thread = await client.threads.create();
    const t0 = Date.now();
    const run = await client.runs.create(thread.thread_id, 'echo', {
      input: { messages: [{ role: 'user', content: 'later' }] },
      afterSeconds: 2,
    });
    // the scenario: halfway through the delay the run must still be waiting (not a wait for a condition)
    await new Promise((r) => setTimeout(r, 1000));
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe('pending');
    const values = (await client.runs.join(thread.thread_id, run.run_id)) as any;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1900);
    expect(values.messages.at(-1).content).toBe('echo #1: later');
  });

  it('a client that drops a live stream and reconnects with Last-Event-ID (to another API process) gets the rest once', async () => {
    // the run is accepted by an API-only process and executed by the fixture's worker; the client follows it
    // from that API process, drops the stream mid-run, and reconnects through the fixture's API
    const api = await startApp({ ...svc.env, RUN_WORKER: 'false' });
    try {
      const first = new Client({ apiUrl: api.url, callerOptions: { maxRetries: 0 } });
      const thread = await first.threads.create();
      const run = await first.runs.create(thread.thread_id, 'slow', { input: { ms: 200 }, streamMode: ['custom'] });
      const seen: Array<{ id?: string; tick: number }> = [];
      for await (const e of first.runs.joinStream(thread.thread_id, run.run_id)) {
        if (e.event === 'custom') seen.push({ id: (e as { id?: string }).id, tick: (e.data as { tick: number }).tick });
        if (seen.length === 3) break; // the client goes away while the run goes on
      }
      expect(seen.map((s) => s.tick)).toEqual([1, 2, 3]);
      expect((await first.runs.get(thread.thread_id, run.run_id)).status).toBe('running');

      const rest = await collect(client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: seen[2].id }));
      expect(rest.filter((e) => e.event === 'custom').map((e) => (e.data as { tick: number }).tick)).toEqual([4, 5, 6, 7, 8, 9, 10]);
      expect(await client.runs.join(thread.thread_id, run.run_id)).toMatchObject({ ticks: 10 });
    } finally {
      await api.close();
    }
  });

  it('wait and stream runs execute in the accepting process (no BullMQ job); their events are still written for join-stream', async () => {
    const queue = new Queue(RUNS_QUEUE, { connection: redisOptions(TEST_REDIS_URL), prefix: svc.queuePrefix });
    try {
      const thread = await client.threads.create();
      const values = (await client.runs.wait(thread.thread_id, 'echo', { input: { messages: [{ role: 'user', content: 'hi' }] } })) as any;
      expect(values.messages.at(-1).content).toBe('echo #1: hi');
      const streamed = await collect(
        client.runs.stream(thread.thread_id, 'echo', { input: { messages: [{ role: 'user', content: 'again' }] }, streamMode: ['values'] }),
      );
      expect(streamed.map((e) => e.event)).toEqual(['metadata', 'values', 'values']);
      expect((streamed.at(-1)!.data as any).messages.at(-1).content).toBe('echo #2: again');
      const runs = await client.runs.list(thread.thread_id);
      expect(runs.map((r) => r.status)).toEqual(['success', 'success']);
      for (const r of runs) expect(await queue.getJob(r.run_id)).toBeUndefined();
      // a background run still goes through the queue
      const background = await client.runs.create(thread.thread_id, 'echo', { input: { messages: [{ role: 'user', content: 'bg' }] } });
      expect(await queue.getJob(background.run_id)).toBeDefined();
      await client.runs.join(thread.thread_id, background.run_id);
      // the window of a wait run, replayed from Redis: metadata and its values chunks, numbered as LangGraph Server does
      const replay = await collect(client.runs.joinStream(thread.thread_id, runs[1].run_id));
      expect(replay.map((e) => e.event)).toEqual(['metadata', 'values', 'values']);
      const ids = replay.map((e) => (e as { id?: string }).id!);
      expect(ids).toEqual(['0', '1', '2']);
      const tail = await collect(client.runs.joinStream(thread.thread_id, runs[1].run_id, { lastEventId: ids[1] }));
      expect(tail.map((e) => (e as { id?: string }).id)).toEqual(ids.slice(2));
    } finally {
      await queue.close();
    }
  });

  it('a wait run whose accepting process is SIGKILLed mid-run is recovered by another process and completes once', async () => {
    // the run executes in the killed process (a process of its own); the fixture's reconciler finds it once its
    // session lease has lapsed, queues it, and the fixture's worker resumes it from its last checkpoint
    const port = String(await freePort());
    const env = Object.fromEntries(Object.entries(svc.env).filter((e): e is [string, string] => e[1] !== undefined));
    const doomed = await WorkerProcess.startApi({ ...env, PORT: port, HOST: '127.0.0.1', RUN_LOCK_MS: '2000' }, 60_000);
    try {
      const other = new Client({ apiUrl: `http://127.0.0.1:${port}`, callerOptions: { maxRetries: 0 } });
      const thread = await client.threads.create();
      const waiting = other.runs.wait(thread.thread_id, 'slow', { input: { ms: 400 } }).catch((e: Error) => e);
      // mid-run: at least two of its ten steps checkpointed
      const ticks = await waitFor(
        async () => {
          const { values } = await client.threads.getState<{ ticks?: number }>(thread.thread_id);
          return values.ticks !== undefined && values.ticks >= 2 ? values.ticks : undefined;
        },
        30_000,
        100,
      );
      expect(ticks).toBeGreaterThanOrEqual(2);
      doomed.kill('SIGKILL');
      await doomed.exited;
      expect(await waiting).toBeInstanceOf(Error);
      const [run] = await client.runs.list(thread.thread_id);
      expect(run.status).toBe('running'); // as the dead process left it
      expect(await client.runs.join(thread.thread_id, run.run_id)).toMatchObject({ ticks: 10 });
      expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe('success');
    } finally {
      await doomed.stop();
    }
  }, 90_000);
});
