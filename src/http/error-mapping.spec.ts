import { BadRequestException, HttpException, NotFoundException, PayloadTooLargeException, UnauthorizedException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';

import { DomainException, MessageTooLargeException, SessionBusyException } from '../core/errors';
import { dialectOf } from './dialect';
import { type HttpError, httpErrorOf, methodNotAllowed } from './error-mapping';
import { renderError } from './error-rendering';

const NO_STACK = /\.ts:\d+|\.js:\d+|\bat \w+ \(/;
const withCode = (e: Error, code: string) => Object.assign(e, { code });
const bodyParser = (type: string, status: number) => Object.assign(new Error('boom'), { type, status, expose: true });

describe('httpErrorOf: the one mapping of errors to HTTP answers', () => {
  it.each<[string, unknown, Partial<HttpError>]>([
    [
      'a domain error: its own status, code, message and details',
      new SessionBusyException('s1', 'r1'),
      { status: 409, code: 'SESSION_BUSY', details: { run_id: 'r1' } },
    ],
    [
      'a domain error with LangGraph Server text',
      new DomainException('THREAD_NOT_FOUND', 'Thread t not found', 404, undefined, 'Thread not found'),
      { status: 404, platformText: 'Thread not found' },
    ],
    [
      'a domain limit',
      new MessageTooLargeException(10, 20),
      { status: 413, code: 'MESSAGE_TOO_LARGE', message: expect.stringMatching(/limit is 10/) },
    ],
    [
      'the JSON parser refusing a body',
      bodyParser('entity.parse.failed', 400),
      { status: 400, code: 'INVALID_JSON', message: 'request body is not valid JSON' },
    ],
    [
      'a body over the limit',
      bodyParser('entity.too.large', 413),
      { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'request body exceeds MAX_BODY_BYTES' },
    ],
    ['an unsupported charset', bodyParser('charset.unsupported', 415), { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' }],
    [
      'another readable client error of the parser',
      bodyParser('encoding.unsupported', 400),
      { status: 400, code: 'INVALID_BODY', message: 'the request body cannot be read: boom' },
    ],
    [
      'validation messages',
      new BadRequestException(['a must be a string', 'b is required']),
      {
        status: 400,
        code: 'VALIDATION_FAILED',
        message: 'a must be a string; b is required',
        details: ['a must be a string', 'b is required'],
      },
    ],
    [
      'a JSON syntax error from Nest',
      new BadRequestException('Unexpected token } in JSON at position 3'),
      { status: 400, code: 'INVALID_JSON' },
    ],
    ['no route', new NotFoundException('Cannot GET /nothing'), { status: 404, code: 'NOT_FOUND', message: 'Cannot GET /nothing' }],
    ["Nest's 413", new PayloadTooLargeException(), { status: 413, code: 'PAYLOAD_TOO_LARGE' }],
    [
      'another Nest status: its name',
      new UnauthorizedException('who are you'),
      { status: 401, code: 'UNAUTHORIZED', message: 'who are you' },
    ],
    ['a status Nest has no name for', new HttpException('odd', 499), { status: 499, code: 'HTTP_ERROR' }],
    [
      'the database refusing connections',
      new QueryFailedError('SELECT 1', [], withCode(new Error('connect ECONNREFUSED 127.0.0.1:5432'), 'ECONNREFUSED')),
      { status: 503, code: 'DATABASE_UNAVAILABLE' },
    ],
    [
      'PgBouncer without a server',
      new Error('server login has been failing, try again later (server_login_retry)'),
      { status: 503, code: 'DATABASE_UNAVAILABLE' },
    ],
    ['Redis away', new Error('Connection is closed.'), { status: 503, code: 'QUEUE_UNAVAILABLE' }],
    ['Redis refusing connections', new Error('connect ECONNREFUSED 127.0.0.1:6379 (ioredis)'), { status: 503, code: 'QUEUE_UNAVAILABLE' }],
    [
      'anything else: a 500 that names nothing of its cause',
      new TypeError("Cannot read properties of undefined (reading 'x')"),
      { status: 500, code: 'INTERNAL_ERROR', message: 'internal error' },
    ],
    ['a thrown string', 'oops', { status: 500, code: 'INTERNAL_ERROR' }],
    ['nothing', undefined, { status: 500, code: 'INTERNAL_ERROR' }],
  ])('%s', (_, error, expected) => {
    const mapped = httpErrorOf(error);
    expect(mapped).toMatchObject(expected);
    expect(JSON.stringify(mapped)).not.toMatch(NO_STACK);
  });

  it("a domain error's headers go with the answer", () => {
    const e = Object.assign(new DomainException('TOKEN_EXPIRED', 'expired', 401), { headers: { 'WWW-Authenticate': 'Bearer' } });
    expect(httpErrorOf(e).headers).toEqual({ 'WWW-Authenticate': 'Bearer' });
  });

  it('405 lists what the path allows in `Allow` and in its details', () => {
    expect(methodNotAllowed('PATCH', '/v1/chat', ['POST'])).toEqual({
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
      message: 'PATCH is not allowed on /v1/chat; allowed: POST',
      details: ['POST'],
      headers: { Allow: 'POST' },
    });
  });
});

describe('dialectOf', () => {
  it.each([
    ['/v1/chat', 'rest'],
    ['/agents/v1/jobs/x', 'rest'],
    ['/threads/t/runs', 'langgraph'],
    ['/assistants', 'langgraph'],
    ['/v1', 'langgraph'],
    ['/health/ready', 'langgraph'],
    [undefined, 'langgraph'],
  ])('%s → %s', (path, dialect) => expect(dialectOf(path)).toBe(dialect));
});

describe('renderError: one mapped error, each dialect its body', () => {
  const busy = httpErrorOf(new SessionBusyException('s1'));
  const text = httpErrorOf(new DomainException('ASSISTANT_NOT_FOUND', 'Assistant "x" not found', 404, undefined, 'Assistant not found'));

  it('REST v1: the error envelope, no LangGraph fields', () => {
    const answer = renderError(busy, 'rest');
    expect(answer).toMatchObject({ status: 409, headers: {}, contentType: 'application/json; charset=utf-8' });
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'SESSION_BUSY', message: 'session s1 is still busy with an earlier turn' } });
    expect(JSON.parse(renderError(text, 'rest').body)).toEqual({
      error: { code: 'ASSISTANT_NOT_FOUND', message: 'Assistant "x" not found' },
    });
  });

  it('the LangGraph API: `detail` beside the envelope, our code in X-Error-Code', () => {
    const answer = renderError(busy, 'langgraph');
    expect(answer.headers).toEqual({ 'X-Error-Code': 'SESSION_BUSY' });
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: 'SESSION_BUSY', message: 'session s1 is still busy with an earlier turn' },
      detail: 'session s1 is still busy with an earlier turn',
    });
  });

  it("the LangGraph API: LangGraph Server's own text where it answers text", () => {
    expect(renderError(text, 'langgraph')).toEqual({
      status: 404,
      headers: { 'X-Error-Code': 'ASSISTANT_NOT_FOUND' },
      contentType: 'text/plain;charset=UTF-8',
      body: 'Assistant not found',
    });
  });

  it("keeps the error's own headers in both dialects", () => {
    const e = methodNotAllowed('PUT', '/threads/t', ['GET', 'PATCH']);
    expect(renderError(e, 'rest').headers).toEqual({ Allow: 'GET, PATCH' });
    expect(renderError(e, 'langgraph').headers).toEqual({ Allow: 'GET, PATCH', 'X-Error-Code': 'METHOD_NOT_ALLOWED' });
    expect(JSON.parse(renderError(e, 'rest').body).error.details).toEqual(['GET', 'PATCH']);
  });
});
