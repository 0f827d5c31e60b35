import { createTestDatabase, TEST_REDIS_URL, type TestDatabase, uniqueQueuePrefix } from '../support/infra';
import { ScriptedModelServer } from '../support/model-server';
import { http, type RunningApp, startApp } from '../support/test-app';

/** The LLM cache: a repeated question is answered without calling the endpoint, shared through Redis. */
describe('LLM cache', () => {
  const model = new ScriptedModelServer();
  let db: TestDatabase;
  const apps: RunningApp[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    await model.start();
    db = await createTestDatabase('llm_cache');
    env = {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: uniqueQueuePrefix('cache'),
      LLM_BASE_URL: model.baseUrl,
      LLM_MODEL: 'm',
      LLM_MAX_RETRIES: '0',
      LLM_CACHE_TTL_SECONDS: '60',
    };
    apps.push(await startApp(env), await startApp({ ...env, RUN_WORKER: 'false' }));
  });

  afterAll(async () => {
    for (const a of apps) await a.close();
    await model.stop();
    await db?.drop();
  });

  const metric = async (url: string, name: string) => {
    const text = (await http(url, 'GET', '/metrics')).body as string;
    return Number(text.match(new RegExp(`^${name} ([\\d.e+-]+)$`, 'm'))?.[1] ?? NaN);
  };

  it('serves a repeated question from the cache, across processes sharing Redis', async () => {
    model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '17*3' } }] }, { content: '17 times 3 is 51.' });
    const first = await http(apps[0].url, 'POST', '/v1/chat', { message: 'What is seventeen times three?' });
    expect(first.body).toMatchObject({ response: '17 times 3 is 51.', llm_calls: 2 });
    expect(model.callCount).toBe(2);

    // another session, another process: same prompts → no call to the endpoint
    const second = await http(apps[1].url, 'POST', '/v1/chat', { message: 'What is seventeen times three?' });
    expect(second.body).toMatchObject({ response: '17 times 3 is 51.', llm_calls: 0, tools_used: ['calculator'] });
    expect(model.callCount).toBe(2);
    const trace = await http(apps[1].url, 'GET', `/v1/sessions/${second.body.session_id}/runs/${second.body.run_id}/trace`);
    expect(trace.body.model_calls.map((c: any) => c.cached)).toEqual([true, true]);

    expect(await metric(apps[1].url, 'llm_cache_hits_total')).toBe(2);
    expect(await metric(apps[0].url, 'llm_cache_misses_total')).toBe(2);
    expect(await metric(apps[1].url, 'llm_cache_hit_ratio')).toBe(1);
  });

  it('never caches a failure', async () => {
    model.enqueue({ fault: 'http_500' });
    const failed = await http(apps[0].url, 'POST', '/v1/chat', { message: 'Tell me something new' });
    expect(failed.body.error.code).toBe('MODEL_UNAVAILABLE');
    model.enqueue({ content: 'Something new.' });
    const retried = await http(apps[0].url, 'POST', '/v1/chat', { message: 'Tell me something new' });
    expect(retried.body).toMatchObject({ response: 'Something new.', llm_calls: 1, error: null });
  });
});
