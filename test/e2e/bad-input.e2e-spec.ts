import { createTestDatabase, type TestDatabase } from '../support/infra';
import { http, type RunningApp, startApp } from '../support/test-app';

/** Bad input gets a clear error, a fitting status and no stack trace; nothing is half-written. */
describe('bad input', () => {
  let db: TestDatabase;
  let svc: RunningApp;

  beforeAll(async () => {
    db = await createTestDatabase('bad_input');
    svc = await startApp({ DATABASE_URL: db.url, MAX_MESSAGE_CHARS: '1000', MAX_BODY_BYTES: '20000' });
  });

  afterAll(async () => {
    await svc?.close();
    await db?.drop();
  });

  const cases: Array<[string, string, unknown, number, string, RegExp?]> = [
    ['missing message', '/v1/chat', {}, 400, 'VALIDATION_FAILED', /message/],
    ['empty message', '/v1/chat', { message: '' }, 400, 'VALIDATION_FAILED', /empty/],
    ['blank message', '/v1/jobs', { message: '   \n ' }, 400, 'VALIDATION_FAILED', /empty/],
    ['non-string message', '/v1/chat', { message: 42 }, 400, 'VALIDATION_FAILED', /string/],
    ['unknown field', '/v1/chat', { message: 'hi', temperature: 2 }, 400, 'VALIDATION_FAILED', /temperature should not exist/],
    ['malformed session id', '/v1/chat', { message: 'hi', session_id: 'not ok!' }, 400, 'VALIDATION_FAILED', /session_id/],
    ['session id over 128 chars', '/v1/chat', { message: 'hi', session_id: 'a'.repeat(129) }, 400, 'VALIDATION_FAILED', /session_id/],
    ['unknown agent', '/v1/chat', { message: 'hi', agent: 'nope' }, 400, 'UNKNOWN_AGENT', /valid agents: .*react/],
    ['unknown agent (job)', '/v1/jobs', { message: 'hi', agent: 'nope' }, 400, 'UNKNOWN_AGENT', /react/],
    ['unknown session', '/v1/chat', { message: 'hi', session_id: '7b0f4bde-0000-4000-8000-000000000000' }, 404, 'SESSION_NOT_FOUND'],
    ['unknown session (job)', '/v1/jobs', { message: 'hi', session_id: '7b0f4bde-0000-4000-8000-000000000000' }, 404, 'SESSION_NOT_FOUND'],
    ['message over MAX_MESSAGE_CHARS', '/v1/chat', { message: 'x'.repeat(1001) }, 413, 'MESSAGE_TOO_LARGE', /1000/],
    ['message over MAX_MESSAGE_CHARS (job)', '/v1/jobs', { message: 'x'.repeat(1001) }, 413, 'MESSAGE_TOO_LARGE'],
    ['body over MAX_BODY_BYTES', '/v1/chat', { message: 'x'.repeat(30000) }, 413, 'PAYLOAD_TOO_LARGE'],
  ];

  const rows = cases.map(([name, path, body, status, code, message]) => ({ name, path, body, status, code, message }));

  it.each(rows)('$name → $status $code', async ({ path, body, status, code, message }) => {
    const res = await http(svc.url, 'POST', path, body);
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    if (message) expect(res.body.error.message).toMatch(message);
    expect(JSON.stringify(res.body)).not.toMatch(/\.ts:\d+|\.js:\d+|stack/);
  });

  it('answers malformed JSON with 400 INVALID_JSON', async () => {
    const res = await http(svc.url, 'POST', '/v1/chat', undefined, '{"message": "hi",');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_JSON');
  });

  it('answers unknown sessions with 404 on every session route', async () => {
    const id = '7b0f4bde-0000-4000-8000-000000000000';
    for (const [method, path] of [
      ['GET', `/v1/sessions/${id}`],
      ['GET', `/v1/sessions/${id}/result`],
      ['GET', `/v1/sessions/${id}/runs/${id}/trace`],
      ['DELETE', `/v1/sessions/${id}`],
      ['GET', '/v1/sessions/never-used-id'],
      ['GET', '/v1/sessions/not%20valid'],
    ]) {
      const res = await http(svc.url, method, path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('SESSION_NOT_FOUND');
    }
  });

  it('refused requests leave no session or run behind', async () => {
    const res = await http(svc.url, 'POST', '/v1/chat', { message: 'hi', agent: 'nope' });
    expect(res.status).toBe(400);
    const { Client } = await import('pg');
    const c = new Client({ connectionString: db.url });
    await c.connect();
    const { rows } = await c.query('SELECT (SELECT count(*) FROM sessions)::int AS s, (SELECT count(*) FROM runs)::int AS r');
    await c.end();
    expect(rows[0]).toEqual({ s: 0, r: 0 });
  });
});

describe('catalogue', () => {
  let db: TestDatabase;
  let svc: RunningApp;

  beforeAll(async () => {
    db = await createTestDatabase('catalogue');
    svc = await startApp({ DATABASE_URL: db.url, READ_FILE_ROOT: __dirname, TAVILY_API_KEY: 'tvly-test' });
  });

  afterAll(async () => {
    await svc?.close();
    await db?.drop();
  });

  it('lists agents and tools, and says why a tool is unavailable', async () => {
    const agents = await http(svc.url, 'GET', '/v1/agents');
    expect(agents.body.agents.map((a: any) => a.name)).toContain('react');
    const tools = await http(svc.url, 'GET', '/v1/tools');
    const byName = Object.fromEntries(tools.body.tools.map((t: any) => [t.name, t]));
    expect(byName.calculator.available).toBe(true);
    expect(byName.read_file.available).toBe(true);
    expect(byName.web_search.available).toBe(true);
    expect(byName.get_weather).toMatchObject({ available: false, reason: expect.stringMatching(/OPENWEATHER|key/i) });
    expect(byName.python_repl).toMatchObject({ available: false, reason: expect.stringMatching(/disabled|enable/i) });
  });
});

describe('OpenAPI', () => {
  let db: TestDatabase;
  let svc: RunningApp;

  beforeAll(async () => {
    db = await createTestDatabase('openapi');
    svc = await startApp({ DATABASE_URL: db.url });
  });

  afterAll(async () => {
    await svc?.close();
    await db?.drop();
  });

  it('serves the API description at /docs', async () => {
    const doc = await http(svc.url, 'GET', '/docs/openapi.json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/v1/chat', '/v1/jobs', '/v1/jobs/{id}', '/v1/sessions/{id}']));
    expect(doc.body.components.schemas.ChatRequestDto.required).toEqual(['message']);
    expect((await fetch(`${svc.url}/docs`)).status).toBe(200);
  });
});
