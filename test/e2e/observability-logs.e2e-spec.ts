import { createServer } from 'node:net';

import { createTestDatabase, type TestDatabase } from '../support/infra';
import { ScriptedModelServer } from '../support/model-server';
import { SCRIPTED_LLM } from '../support/service-fixture';
import { waitFor } from '../support/test-app';
import { WorkerProcess } from '../support/worker-process';

const API_KEY = 'obs-tenant-key-0123456789abcdef';
const MODEL_KEY = 'sk-model-secret-9876543210fedcba';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** The real service process: its stdout is JSON lines with the request's and the run's context, and no secrets. */
describe('structured logs', () => {
  const model = new ScriptedModelServer();
  let db: TestDatabase;
  let api: WorkerProcess;
  let url: string;
  let stdout = '';

  beforeAll(async () => {
    await model.start();
    db = await createTestDatabase('obs_logs');
    const port = await freePort();
    api = await WorkerProcess.startApi({
      ...SCRIPTED_LLM,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      LLM_BASE_URL: model.baseUrl,
      LLM_API_KEY: MODEL_KEY,
      API_KEYS: `acme:${API_KEY}`,
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'json',
      DEFAULT_AGENT: 'react',
    });
    url = `http://127.0.0.1:${port}`;
    api.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  });

  afterAll(async () => {
    await api?.stop();
    await model.stop();
    await db?.drop();
  });

  // everything written to stdout since the service started (its start-up lines: `api.logs`)
  const lines = () =>
    stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => {
        try {
          return JSON.parse(l) as Record<string, unknown>;
        } catch {
          throw new Error(`not a JSON line: ${l}`);
        }
      });

  it('writes one JSON object a line with request id, tenant, session, run, agent and node; prompts only at debug, keys never', async () => {
    model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] }, { content: '답은 42입니다.' });
    const res = await fetch(`${url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}`, 'x-request-id': 'req-obs-1' },
      body: JSON.stringify({ message: '6 곱하기 7은?' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('req-obs-1');
    const { run_id, session_id } = (await res.json()) as { run_id: string; session_id: string };
    const denied = await fetch(`${url}/v1/sessions/${session_id}`, { headers: { 'x-api-key': `${API_KEY}x` } });
    expect(denied.status).toBe(401);

    // the completion line of the request, written when the response is finished
    const done = await waitFor(async () => lines().find((l) => l.request_id === 'req-obs-1' && l.route === '/v1/chat'));
    expect(done).toMatchObject({ level: 'info', tenant_id: 'acme', res: { status: 200 }, req: { method: 'POST', url: '/v1/chat' } });
    expect(typeof done.responseTime).toBe('number');

    const all = lines();
    for (const l of all) expect(l).toEqual(expect.objectContaining({ level: expect.any(String), time: expect.any(String) }));
    const ended = all.find((l) => l.msg === 'run ended');
    expect(ended).toMatchObject({ request_id: 'req-obs-1', tenant_id: 'acme', session_id, run_id, agent: 'react', status: 'completed' });
    const call = all.find((l) => l.msg === 'model call' && l.node === 'LlmNode');
    expect(call).toMatchObject({ level: 'debug', run_id, session_id, agent: 'react', model: 'm', request_id: 'req-obs-1' });
    expect(String(call!.prompt)).toContain('human: 6 곱하기 7은?');
    const tool = all.find((l) => l.msg === 'tool call');
    expect(tool).toMatchObject({ level: 'debug', tool: 'calculator', run_id, ok: true });
    expect(String(tool!.output)).toContain('42');

    // a queued run's lines carry the id of the request that queued it (and each line has one request_id)
    model.enqueue({ content: '안녕하세요.' });
    const queued = await fetch(`${url}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': API_KEY, 'x-request-id': 'req-obs-2' },
      body: JSON.stringify({ message: '안녕', session_id }),
    });
    expect(queued.status).toBe(202);
    const { job_id } = (await queued.json()) as { job_id: string };
    const queuedEnd = await waitFor(async () => lines().find((l) => l.msg === 'run ended' && l.run_id === job_id));
    expect(queuedEnd).toMatchObject({ request_id: 'req-obs-2', tenant_id: 'acme', session_id, agent: 'react', status: 'completed' });
    for (const line of stdout.split('\n')) expect(line.split('"request_id"').length).toBeLessThanOrEqual(2);

    const startup = api.logs.split('\n').find((l) => l.includes('listening on'));
    expect(JSON.parse(startup!)).toMatchObject({ level: 'info', context: 'Main' });
    for (const text of [stdout, api.logs]) {
      expect(text).not.toContain(API_KEY);
      expect(text).not.toContain(MODEL_KEY);
    }
  });
});
