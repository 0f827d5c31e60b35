import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Client } from 'pg';

import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { http } from '../support/test-app';

/** Bad input gets a clear error, a fitting status and no stack trace; nothing is half-written. */
describe('bad input', () => {
  const svc = useService('bad_input', { env: { MAX_MESSAGE_CHARS: '1000', MAX_BODY_BYTES: '20000' } });

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

  it('sends no CORS headers unless CORS_ORIGINS allows the origin', async () => {
    const res = await fetch(`${svc.url}/v1/agents`, { headers: { origin: 'https://app.example.com' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('refused requests leave no session or run behind', async () => {
    const res = await http(svc.url, 'POST', '/v1/chat', { message: 'hi', agent: 'nope' });
    expect(res.status).toBe(400);
    const { Client } = await import('pg');
    const c = new Client({ connectionString: svc.db.url });
    await c.connect();
    const { rows } = await c.query('SELECT (SELECT count(*) FROM sessions)::int AS s, (SELECT count(*) FROM runs)::int AS r');
    await c.end();
    expect(rows[0]).toEqual({ s: 0, r: 0 });
  });
});

describe('catalogue', () => {
  const svc = useService('catalogue', { env: { READ_FILE_ROOT: __dirname, TAVILY_API_KEY: 'tvly-test' } });

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
  const svc = useService('openapi');

  it('serves the API description at /docs', async () => {
    const doc = await http(svc.url, 'GET', '/docs/openapi.json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/v1/chat', '/v1/jobs', '/v1/jobs/{id}', '/v1/sessions/{id}']));
    expect(doc.body.components.schemas.ChatRequestDto.required).toEqual(['message']);
    expect((await fetch(`${svc.url}/docs`)).status).toBe(200);
  });
});

/** A request with exactly these bytes and headers; the JSON error body (if any) and the headers back. */
async function send(base: string, path: string, body: RequestInit['body'], headers: Record<string, string>, method = 'POST') {
  const res = await fetch(`${base}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

const JSON_TYPE = { 'content-type': 'application/json' };
const nested = (depth: number, open: string, close: string, inner = '1') => open.repeat(depth) + inner + close.repeat(depth);

/**
 * Hostile input is refused with a clear 4xx before it reaches the validator or the database: NUL and lone
 * surrogates, deep nesting, prototype keys, wrong content types and encodings, binary uploads; what a model
 * produces is stored safely whatever it holds.
 */
describe('hostile input', () => {
  const svc = useService('hostile_input', {
    env: { ...SCRIPTED_LLM, MAX_BODY_BYTES: '65536', CORS_ORIGINS: 'https://app.example.com' },
    model: { resetEach: true },
  });
  const { model } = svc;
  const contract = readFileSync(join(__dirname, '..', 'fixtures', 'contracts', 'service-agreement.md'), 'utf8');

  const rawCases: Array<[string, string, string, RegExp]> = [
    ['NUL in message', '/v1/chat', '{"message": "hi\\u0000there"}', /body\.message contains a NUL/],
    ['NUL in message (job)', '/v1/jobs', '{"message": "hi\\u0000"}', /NUL/],
    ['NUL in a metadata value', '/v1/chat', '{"message": "hi", "metadata": {"a": ["x\\u0000"]}}', /body\.metadata\.a\[0\] contains a NUL/],
    ['NUL in a metadata key', '/v1/chat', '{"message": "hi", "metadata": {"a\\u0000b": 1}}', /key contains a NUL/],
    [
      'NUL in contract content',
      '/v1/contracts',
      JSON.stringify({ title: 't', content: 'x' }).replace('"x"', '"제1조 (목적)\\u0000"'),
      /NUL/,
    ],
    ['NUL in a document', '/v1/documents', '{"title": "t", "content": "a\\u0000b"}', /NUL/],
    ['lone high surrogate', '/v1/chat', '{"message": "hi \\ud800 there"}', /lone surrogate/],
    ['lone low surrogate in metadata', '/v1/chat', '{"message": "hi", "metadata": {"k": "\\udc00"}}', /lone surrogate/],
    [
      '5,000-level nested metadata (arrays)',
      '/v1/chat',
      `{"message": "hi", "metadata": {"a": ${nested(5000, '[', ']')}}}`,
      /deeper than 32/,
    ],
    ['5,000-level nested metadata (objects)', '/v1/chat', `{"message": "hi", "metadata": ${nested(5000, '{"a":', '}')}}`, /deeper than 32/],
    ['33-level nested metadata', '/v1/jobs', `{"message": "hi", "metadata": ${nested(33, '{"a":', '}')}}`, /deeper than 32/],
    ['__proto__ key', '/v1/chat', '{"message": "hi", "metadata": {"__proto__": {"admin": true}}}', /"__proto__" is not allowed/],
    ['constructor key', '/v1/chat', '{"message": "hi", "constructor": {"prototype": {}}}', /"constructor" is not allowed/],
    ['nested prototype key', '/v1/chat', '{"message": "hi", "metadata": {"x": [{"prototype": 1}]}}', /"prototype" is not allowed/],
  ];
  const rawRows = rawCases.map(([name, path, raw, message]) => ({ name, path, raw, message }));

  it.each(rawRows)('$name → 400 INVALID_INPUT', async ({ path, raw, message }) => {
    const res = await send(svc.url, path, raw, JSON_TYPE);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_INPUT');
    expect(res.body.error.message).toMatch(message);
    expect(JSON.stringify(res.body)).not.toMatch(/\.ts:\d+|\.js:\d+|stack|postgres|invalid byte sequence/i);
  });

  it('nothing of the refused requests reached the database or the model', async () => {
    const c = new Client({ connectionString: svc.db.url });
    await c.connect();
    const { rows } = await c.query(
      'SELECT (SELECT count(*) FROM sessions)::int AS s, (SELECT count(*) FROM runs)::int AS r, (SELECT count(*) FROM contracts)::int AS c',
    );
    await c.end();
    expect(rows[0]).toEqual({ s: 0, r: 0, c: 0 });
    expect(model.callCount).toBe(0);
  });

  it('accepts nesting within the limit and well-formed surrogate pairs', async () => {
    model.enqueue({ content: 'fine 😀' });
    const res = await send(
      svc.url,
      '/v1/chat',
      `{"message": "hi \\ud83d\\ude00", "agent": "react", "metadata": ${nested(30, '{"a":', '}')}}`,
      JSON_TYPE,
    );
    expect(res.status).toBe(200);
    expect(res.body.response).toBe('fine 😀');
  });

  it('answers a wrong content type with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const body = JSON.stringify({ message: 'hi' });
    for (const [path, type] of [
      ['/v1/chat', 'text/plain'],
      ['/v1/chat', 'application/x-www-form-urlencoded'],
      ['/v1/jobs', 'application/xml'],
      ['/v1/documents', 'text/plain;charset=utf-8'],
      ['/v1/chat/stream', 'text/plain'],
    ]) {
      const res = await send(svc.url, path, body, { 'content-type': type });
      expect({ path, type, status: res.status, code: res.body?.error?.code }).toEqual({
        path,
        type,
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
      });
    }
    const form = new FormData();
    form.append('message', 'hi');
    const multipart = await send(svc.url, '/v1/chat', form, {});
    expect({ status: multipart.status, code: multipart.body.error.code }).toEqual({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
    const none = await send(svc.url, '/v1/chat', new Blob([body]), {});
    expect(none.status).toBe(415);
  });

  it('answers content-encoding gzip with a plain body with 400, not 500', async () => {
    const res = await send(svc.url, '/v1/chat', JSON.stringify({ message: 'hi' }), { ...JSON_TYPE, 'content-encoding': 'gzip' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_BODY');
    const unknown = await send(svc.url, '/v1/chat', JSON.stringify({ message: 'hi' }), { ...JSON_TYPE, 'content-encoding': 'zstd-nope' });
    expect(unknown.status).toBe(415);
    expect(unknown.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses zip and NUL-containing contract uploads, and NUL in multipart fields', async () => {
    const upload = (title: string, bytes: Uint8Array | string, name: string) => {
      const form = new FormData();
      form.append('title', title);
      form.append('file', new Blob([bytes]), name);
      return send(svc.url, '/v1/contracts', form, {});
    };
    const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0]), Buffer.from(contract)]);
    const zipped = await upload('계약서', zip, 'contract.zip');
    expect({ status: zipped.status, code: zipped.body.error.code }).toEqual({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
    const withNul = await upload('계약서', `${contract.slice(0, 200)}\u0000${contract.slice(200)}`, 'contract.txt');
    expect({ status: withNul.status, code: withNul.body.error.code }).toEqual({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
    const latin1 = await upload('계약서', Buffer.from([0xc0, 0xaf, 0xff, 0xfe]), 'contract.txt');
    expect(latin1.status).toBe(415);
    const nulTitle = await upload('계약\u0000서', contract, 'contract.txt');
    expect({ status: nulTitle.status, code: nulTitle.body.error.code }).toEqual({ status: 400, code: 'INVALID_INPUT' });
    expect((await http(svc.url, 'GET', '/v1/contracts')).body.contracts).toEqual([]);
    expect((await upload('계약서', contract, 'contract.txt')).status).toBe(201);
  });

  it('answers malformed multipart uploads with a 4xx', async () => {
    const boundary = '----x';
    const head = `--${boundary}\r\ncontent-disposition: form-data; name="title"\r\n\r\n계약서\r\n--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="c.txt"\r\ncontent-type: text/plain\r\n\r\n제1조 (목적)`;
    const type = { 'content-type': `multipart/form-data; boundary=${boundary}` };
    const truncated = await send(svc.url, '/v1/contracts', head, type);
    const noBoundary = await send(svc.url, '/v1/contracts', head, { 'content-type': 'multipart/form-data' });
    const wrongField = new FormData();
    wrongField.append('title', '계약서');
    wrongField.append('upload', new Blob([contract]), 'c.txt');
    const unexpected = await send(svc.url, '/v1/contracts', wrongField, {});
    for (const res of [truncated, noBoundary, unexpected]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(JSON.stringify(res.body)).not.toMatch(/\.ts:\d+|\.js:\d+|stack/);
    }
  });

  it('answers an unknown contract_id with 404 CONTRACT_NOT_FOUND instead of a "not found" answer', async () => {
    for (const [path, contract_id] of [
      ['/v1/chat', '7b0f4bde-0000-4000-8000-000000000000'],
      ['/v1/chat', 'no-such-contract'],
      ['/v1/jobs', '7b0f4bde-0000-4000-8000-000000000000'],
      ['/v1/chat/stream', '7b0f4bde-0000-4000-8000-000000000000'],
    ]) {
      const res = await http(svc.url, 'POST', path, { message: '해지 조건이 뭐야?', agent: 'contract-qa', contract_id });
      expect({ path, status: res.status, code: res.body.error?.code }).toEqual({ path, status: 404, code: 'CONTRACT_NOT_FOUND' });
    }
    expect(model.callCount).toBe(0);
  });

  it('keeps a turn whose model put NUL and lone surrogates into tool arguments and its answer', async () => {
    model.enqueue(
      { toolCalls: [{ name: 'calculator', args: { expression: '6*7\u0000', note: 'x\ud800y', 'k\u0000': 1 } }] },
      { content: 'The answer is 42\u0000.' },
    );
    const res = await http(svc.url, 'POST', '/v1/chat', { message: 'What is 6 times 7?', agent: 'react' });
    expect(res.status).toBe(200);
    expect(res.body.error).toBeNull();
    expect(res.body.response).toContain('42');
    const trace = await http(svc.url, 'GET', `/v1/sessions/${res.body.session_id}/runs/${res.body.run_id}/trace`);
    expect(trace.status).toBe(200);
    const session = await http(svc.url, 'GET', `/v1/sessions/${res.body.session_id}`);
    expect(session.body.messages.map((m: any) => m.content)).toEqual(['What is 6 times 7?', 'The answer is 42.']);
    expect(session.body.runs[0].status).toBe('completed');
    expect(JSON.stringify([res.body, trace.body])).not.toMatch(/unsupported Unicode|invalid byte sequence|\\u0000 cannot be converted/i);
  });

  it('sends helmet security headers; CORS answers only the allowed origin', async () => {
    const res = await fetch(`${svc.url}/v1/agents`, { headers: { origin: 'https://app.example.com' } });
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const preflight = await fetch(`${svc.url}/v1/chat`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const other = await fetch(`${svc.url}/v1/agents`, { headers: { origin: 'https://evil.example.net' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});
