import { createServer, type IncomingMessage, type Server } from 'node:http';

import { createTestDatabase, type TestDatabase } from '../support/infra';
import { ScriptedModelServer } from '../support/model-server';
import { SCRIPTED_LLM } from '../support/service-fixture';
import { http, type RunningApp, startApp } from '../support/test-app';

type OtlpSpan = { name: string; traceId: string; attributes: { key: string; value: Record<string, unknown> }[] };
type OtlpBody = {
  resourceSpans: {
    resource: { attributes: OtlpBody['resourceSpans'][0]['scopeSpans'][0]['spans'][0]['attributes'] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
};

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => resolve(text));
  });

/** OTEL_EXPORTER_OTLP_ENDPOINT set: the app's own SDK exports its spans over OTLP/HTTP (flushed at shutdown). */
describe('OTLP export', () => {
  const model = new ScriptedModelServer();
  const posts: { path: string; body: OtlpBody }[] = [];
  let collector: Server;
  let db: TestDatabase;
  let app: RunningApp | undefined;

  beforeAll(async () => {
    collector = createServer((req, res) => {
      void readBody(req).then((text) => {
        posts.push({ path: req.url ?? '', body: JSON.parse(text) as OtlpBody });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    await model.start();
    db = await createTestDatabase('obs_otlp');
  });

  afterAll(async () => {
    await app?.close();
    await model.stop();
    await db?.drop();
    await new Promise((r) => collector.close(r));
  });

  it('sends the request, run and model-call spans of a turn to <endpoint>/v1/traces with the service name', async () => {
    const { port } = collector.address() as { port: number };
    app = await startApp({
      ...SCRIPTED_LLM,
      DATABASE_URL: db.url,
      LLM_BASE_URL: model.baseUrl,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_SERVICE_NAME: 'agents-under-test',
    });
    model.enqueue({ content: '안녕하세요.' });
    expect((await http(app.url, 'POST', '/v1/chat', { agent: 'react', message: '안녕' })).status).toBe(200);
    await app.close(); // flushes the batch
    app = undefined;

    expect(posts.length).toBeGreaterThan(0);
    expect(posts.every((p) => p.path === '/v1/traces')).toBe(true);
    const resources = posts.flatMap((p) => p.body.resourceSpans);
    const serviceName = resources[0].resource.attributes.find((a) => a.key === 'service.name')?.value;
    expect(serviceName).toEqual({ stringValue: 'agents-under-test' });
    const spans = resources.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    const names = spans.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['POST /v1/chat', 'invoke_agent react', 'chat m']));
    const run = spans.find((s) => s.name === 'invoke_agent react')!;
    expect(spans.find((s) => s.name === 'POST /v1/chat')!.traceId).toBe(run.traceId);
  });
});
