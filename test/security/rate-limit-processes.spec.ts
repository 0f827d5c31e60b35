import { createTestDatabase, TEST_REDIS_URL, type TestDatabase, uniqueQueuePrefix } from '../support/infra';
import { freePort } from '../support/main-process';
import { WorkerProcess } from '../support/worker-process';

const ACME = 'acme-key-0123456789abcdef';
const GLOBEX = 'globex-key-0123456789abcdef';
const LIMIT = 10;

/**
 * RATE_LIMIT_PER_MINUTE is one budget per key for the whole service: two API processes (`main.ts`, each in a
 * process of its own) over the same Redis, hit in parallel, let exactly LIMIT requests of a key through in total.
 */
describe('rate limit shared by API processes', () => {
  let db: TestDatabase;
  const apis: Array<{ process: WorkerProcess; url: string }> = [];

  beforeAll(async () => {
    db = await createTestDatabase('ratelimit_procs');
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: uniqueQueuePrefix('ratelimit_procs'),
      API_KEYS: `acme:${ACME},globex:${GLOBEX}`,
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
      RUN_WORKER: 'false',
      HOST: '127.0.0.1',
    };
    for (const port of [await freePort(), await freePort()]) {
      apis.push({ process: await WorkerProcess.startApi({ ...env, PORT: String(port) }), url: `http://127.0.0.1:${port}` });
    }
  });

  afterAll(async () => {
    for (const a of apis) await a.process.stop();
    await db?.drop();
  });

  it(`${LIMIT} requests of a key in total, whichever process they reach; another key has its own budget`, async () => {
    const agents = (url: string, key: string) => fetch(`${url}/v1/agents`, { headers: { 'x-api-key': key } }).then((r) => r.status);
    // 3 × LIMIT at once, half to each process
    const statuses = await Promise.all(Array.from({ length: 3 * LIMIT }, (_, i) => agents(apis[i % 2].url, ACME)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2 * LIMIT);
    for (const a of apis) expect(await agents(a.url, ACME)).toBe(429);
    expect(await agents(apis[1].url, GLOBEX)).toBe(200);
  });
});
