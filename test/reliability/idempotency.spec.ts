import { Harness, historyOf, weatherResponder } from './support/harness';

/** `Idempotency-Key` on POST /v1/jobs, /v1/chat and /v1/chat/stream: a repeat returns the first job or result, never a second run. */
describe('Idempotency-Key', () => {
  const h = new Harness();
  const post = (path: string, body: unknown, key?: string) =>
    fetch(`${h.api.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key !== undefined ? { 'idempotency-key': key } : {}) },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
  const asked = (text: string) => h.model.requests.filter((r) => historyOf(r).user.includes(text)).length;

  beforeAll(async () => {
    await h.start('idem', { DEFAULT_AGENT: 'react' });
    h.model.setResponder(weatherResponder);
  });

  afterAll(async () => {
    await h.stop();
  });

  it('POST /v1/jobs: concurrent repeats get the same job; one run, one execution', async () => {
    await h.startWorker();
    const answers = await Promise.all(Array.from({ length: 5 }, () => post('/v1/jobs', { message: 'job once' }, 'job-key-1')));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 202]);
    expect(new Set(answers.map((a) => a.body.job_id)).size).toBe(1);
    const [run] = await h.allEnded([answers[0].body.job_id]);
    expect(run.status).toBe('completed');
    const repeat = await post('/v1/jobs', { message: 'job once' }, 'job-key-1');
    expect(repeat).toMatchObject({ status: 202, body: { job_id: run.id, status: 'completed' } });
    expect((await h.query(`SELECT count(*)::int AS n FROM runs WHERE idempotency_key = 'job-key-1'`))[0].n).toBe(1);
    expect((await h.query(`SELECT count(*)::int AS n FROM sessions`))[0].n).toBe(1);
    expect(asked('job once')).toBe(1);
  });

  it('POST /v1/chat: a repeat returns the first result; a different body under the same key is refused', async () => {
    const [a, b] = await Promise.all([
      post('/v1/chat', { message: 'chat once' }, 'chat-key-1'),
      post('/v1/chat', { message: 'chat once' }, 'chat-key-1'),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body.run_id).toBe(a.body.run_id);
    expect(b.body.response).toBe(a.body.response);
    expect(asked('chat once')).toBe(1);

    const other = await post('/v1/chat', { message: 'something else' }, 'chat-key-1');
    expect(other).toMatchObject({ status: 422, body: { error: { code: 'IDEMPOTENCY_KEY_REUSED' } } });
    expect(asked('something else')).toBe(0);
    const bad = await post('/v1/jobs', { message: 'x' }, 'k'.repeat(300));
    expect(bad).toMatchObject({ status: 400, body: { error: { code: 'INVALID_IDEMPOTENCY_KEY' } } });
  });

  it('POST /v1/chat/stream: a repeat names the first run and gets its result; a different body under the same key is refused', async () => {
    const stream = async (body: unknown, key: string) => {
      const r = await fetch(`${h.api.url}/v1/chat/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(body),
      });
      const text = await r.text();
      const events = [...text.matchAll(/(?:id: [^\n]*\n)?event: (\w+)\ndata: ([^\n]*)/g)].map((m) => ({
        event: m[1],
        data: JSON.parse(m[2]),
      }));
      return { status: r.status, text, events };
    };
    const first = await stream({ message: 'stream once' }, 'stream-key-1');
    const again = await stream({ message: 'stream once' }, 'stream-key-1');
    expect([first.status, again.status]).toEqual([200, 200]);
    const runOf = (s: typeof first) => s.events.find((e) => e.event === 'run')?.data.run_id;
    const resultOf = (s: typeof first) => s.events.find((e) => e.event === 'result')?.data;
    expect(runOf(first)).toEqual(expect.any(String));
    expect(runOf(again)).toBe(runOf(first));
    expect(resultOf(again)).toEqual(resultOf(first));
    expect(resultOf(first).run_id).toBe(runOf(first));
    expect(asked('stream once')).toBe(1);
    expect((await h.query(`SELECT count(*)::int AS n FROM runs WHERE idempotency_key = 'stream-key-1'`))[0].n).toBe(1);

    const other = await stream({ message: 'another stream' }, 'stream-key-1');
    expect(other.status).toBe(422);
    expect(JSON.parse(other.text)).toMatchObject({ error: { code: 'IDEMPOTENCY_KEY_REUSED' } });
    expect(asked('another stream')).toBe(0);
  });

  it('10 parallel POST /v1/chat and 10 parallel POST /v1/jobs racing on one key: one run each, the same answer for all', async () => {
    h.model.latencyMs = 300; // the first request is still running while the others arrive
    try {
      const body = { message: 'weather in Daegu', session_id: 'race-chat', agent: 'assistant' }; // the agent with get_weather
      const chats = await Promise.all(Array.from({ length: 10 }, () => post('/v1/chat', body, 'race-chat-key')));
      expect(chats.map((c) => c.status)).toEqual(Array(10).fill(200));
      expect(new Set(chats.map((c) => c.body.run_id)).size).toBe(1);
      for (const c of chats) expect(c.body).toEqual(chats[0].body);
      expect(chats[0].body.response).toBe('날씨를 확인했습니다: Daegu');

      if (!h.workers.some((w) => w.alive)) await h.startWorker();
      const jobBody = { message: 'weather in Ulsan', agent: 'assistant' };
      const jobs = await Promise.all(Array.from({ length: 10 }, () => post('/v1/jobs', jobBody, 'race-job-key')));
      expect(jobs.map((j) => j.status)).toEqual(Array(10).fill(202));
      expect(new Set(jobs.map((j) => j.body.job_id)).size).toBe(1);
      const [run] = await h.allEnded([jobs[0].body.job_id]);
      expect(run.status).toBe('completed');
      const results = await Promise.all(Array.from({ length: 10 }, () => h.job(run.id)));
      for (const r of results) expect(r.result).toEqual(results[0].result);
      expect(results[0].result.response).toBe('날씨를 확인했습니다: Ulsan');

      const runs = await h.query(`SELECT idempotency_key, count(*)::int AS n FROM runs WHERE input->>'message' IN ($1, $2) GROUP BY 1`, [
        body.message,
        jobBody.message,
      ]);
      expect(runs).toEqual(
        expect.arrayContaining([
          { idempotency_key: 'race-chat-key', n: 1 },
          { idempotency_key: 'race-job-key', n: 1 },
        ]),
      );
      expect(runs).toHaveLength(2); // no run of a losing request is left behind, with or without the key
      expect(h.weather.count('Daegu')).toBe(1);
      expect(h.weather.count('Ulsan')).toBe(1);
      expect(asked('weather in Daegu')).toBe(2); // the tool decision and the answer, once
      expect(asked('weather in Ulsan')).toBe(2);
    } finally {
      h.model.latencyMs = 0;
    }
  });
});
