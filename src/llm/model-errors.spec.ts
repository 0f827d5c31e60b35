import { APIConnectionError, APIConnectionTimeoutError, BadRequestError, InternalServerError } from 'openai';

import { rewrapError } from './error-body-fetch';
import {
  isAbortError,
  isModelUnavailable,
  ModelUnavailableError,
  namingTheEndpoint,
  toModelUnavailable,
  transportCause,
} from './model-errors';

const headers = new Headers();

describe('model errors', () => {
  it('recognises endpoint failures: connection, timeout, 5xx, 429, typed errors', () => {
    expect(isModelUnavailable(new ModelUnavailableError('x'))).toBe(true);
    expect(isModelUnavailable({ code: 'MODEL_UNAVAILABLE' })).toBe(true);
    expect(isModelUnavailable(new APIConnectionError({ message: 'refused' }))).toBe(true);
    expect(isModelUnavailable(new APIConnectionTimeoutError())).toBe(true);
    expect(isModelUnavailable(new InternalServerError(500, { message: 'boom' }, undefined, headers))).toBe(true);
    expect(isModelUnavailable(Object.assign(new Error('429'), { status: 429 }))).toBe(true);
    expect(isModelUnavailable(Object.assign(new Error('timed out'), { name: 'TimeoutError' }))).toBe(true);
    expect(isModelUnavailable(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(true);
  });

  it('does not call a bad request, a plain bug or a cancellation a model outage', () => {
    expect(isModelUnavailable(new BadRequestError(400, { message: 'bad' }, undefined, headers))).toBe(false);
    expect(isModelUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isModelUnavailable(Object.assign(new Error('Aborted'), { name: 'AbortError' }))).toBe(false);
  });

  it('maps errors to ModelUnavailableError, but never an abort', () => {
    const wrapped = toModelUnavailable(new Error('500 boom'));
    expect(wrapped).toBeInstanceOf(ModelUnavailableError);
    expect(wrapped).toMatchObject({ code: 'MODEL_UNAVAILABLE', message: 'model call failed: 500 boom' });
    const abort = Object.assign(new Error('Aborted'), { name: 'AbortError' });
    expect(toModelUnavailable(abort)).toBe(abort);
    const c = new AbortController();
    c.abort();
    const during = new Error('socket closed');
    expect(isAbortError(during, c.signal)).toBe(true);
    expect(toModelUnavailable(during, c.signal)).toBe(during);
  });

  it("rewraps vLLM's top-level error body so the client keeps the message", () => {
    const vllm = JSON.stringify({
      object: 'error',
      message: '"auto" tool choice requires …',
      type: 'BadRequestError',
      param: null,
      code: 400,
    });
    expect(JSON.parse(rewrapError(vllm))).toEqual({
      error: { message: '"auto" tool choice requires …', type: 'BadRequestError', param: null, code: 400 },
    });
    const openai = JSON.stringify({ error: { message: 'x' } });
    expect(rewrapError(openai)).toBe(openai);
    expect(rewrapError('not json')).toBe('not json');
  });
  it('names what the connection did under "Connection error.": the innermost cause, code and message', () => {
    const closed = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    expect(transportCause(new APIConnectionError({ cause: closed }))).toBe('UND_ERR_SOCKET: other side closed');
    // fetch's "fetch failed" with the socket's error under it; a message that holds its code is not doubled
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    const viaFetch = new APIConnectionError({ cause: new TypeError('fetch failed', { cause: refused }) });
    expect(transportCause(viaFetch)).toBe('connect ECONNREFUSED 127.0.0.1:9');
    expect(transportCause(new APIConnectionError({}))).toBeUndefined();
    expect(transportCause(new Error('x', { cause: { code: 'ETIMEDOUT' } }))).toBe('ETIMEDOUT');
    expect(transportCause(new Error('x', { cause: new Error('y'.repeat(500)) }))).toHaveLength(160);
  });

  it('a model error without an HTTP status names the endpoint and the cause; one with a status is left as it is', () => {
    const closed = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    const named = namingTheEndpoint(new APIConnectionError({ cause: closed }), 'http://127.0.0.1:9/v1') as Error;
    expect(named.message).toBe('Connection error. (LLM_BASE_URL http://127.0.0.1:9/v1 did not answer: UND_ERR_SOCKET: other side closed)');
    expect((namingTheEndpoint(new APIConnectionError({}), 'http://h/v1') as Error).message).toBe(
      'Connection error. (LLM_BASE_URL http://h/v1 did not answer)',
    );
    const http500 = new InternalServerError(500, { message: 'boom' }, 'boom', new Headers());
    expect((namingTheEndpoint(http500, 'http://h/v1') as Error).message).not.toContain('did not answer');
  });
});
