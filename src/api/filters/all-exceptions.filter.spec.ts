import type { ArgumentsHost } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';

import { DomainException } from '../../core/errors';
import { AllExceptionsFilter } from './all-exceptions.filter';

/** What the filter sent: status, headers, content type and body. */
function answer(path: string, exception: unknown) {
  const sent = { status: 0, headers: {} as Record<string, string>, type: '', body: undefined as unknown };
  const res = {
    headersSent: false,
    set: (headers: Record<string, string>) => (Object.entries(headers).forEach(([k, v]) => (sent.headers[k.toLowerCase()] = v)), res),
    status: (s: number) => ((sent.status = s), res),
    type: (t: string) => ((sent.type = t), res),
    send: (b: string) => ((sent.body = sent.type.startsWith('application/json') ? JSON.parse(b) : b), res),
  };
  const req = { path, method: 'GET', app: {} };
  const host = { switchToHttp: () => ({ getResponse: () => res, getRequest: () => req }) } as unknown as ArgumentsHost;
  new AllExceptionsFilter().catch(exception, host);
  return sent;
}

describe('AllExceptionsFilter: LangGraph Server error texts', () => {
  const notFound = new DomainException('ASSISTANT_NOT_FOUND', 'Assistant "x" not found', 404, undefined, 'Assistant not found');

  it('answers a LangGraph API route with the reference text, our code in X-Error-Code', () => {
    expect(answer('/assistants/x', notFound)).toEqual({
      status: 404,
      headers: { 'x-error-code': 'ASSISTANT_NOT_FOUND' },
      type: 'text/plain;charset=UTF-8',
      body: 'Assistant not found',
    });
  });

  it('keeps JSON with `detail` where the reference answers JSON, and the REST v1 envelope', () => {
    const invalid = new DomainException('VALIDATION_FAILED', 'graph_id: required', 422);
    expect(answer('/assistants', invalid).body).toEqual({
      error: { code: 'VALIDATION_FAILED', message: 'graph_id: required' },
      detail: 'graph_id: required',
    });
    const v1 = answer('/v1/sessions/x', notFound);
    expect(v1).toEqual({
      status: 404,
      headers: {},
      type: 'application/json; charset=utf-8',
      body: { error: { code: 'ASSISTANT_NOT_FOUND', message: 'Assistant "x" not found' } },
    });
  });
});

describe('AllExceptionsFilter: never a stack trace', () => {
  it('answers an unexpected error 500 INTERNAL_ERROR with nothing of its cause, in each dialect', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'x')");
    for (const path of ['/v1/chat', '/threads/t/runs']) {
      const sent = answer(path, bug);
      expect(sent.status).toBe(500);
      expect(JSON.stringify(sent.body)).not.toMatch(/reading 'x'|TypeError|\.ts:\d+|\bat \w+ \(/);
      expect(sent.body).toMatchObject({ error: { code: 'INTERNAL_ERROR', message: 'internal error' } });
    }
  });
});

describe('AllExceptionsFilter: the database away', () => {
  it('answers 503 DATABASE_UNAVAILABLE when PgBouncer has no server to give (Postgres restarting behind it)', () => {
    const err = new Error('server login has been failing, try again later (server_login_retry)');
    const sent = answer('/v1/jobs', new QueryFailedError('SELECT 1', [], Object.assign(err, { code: '08P01' })));
    expect(sent).toMatchObject({ status: 503, body: { error: { code: 'DATABASE_UNAVAILABLE' } } });
  });
});
