import { APIConnectionError, APIConnectionTimeoutError, BadRequestError, InternalServerError } from 'openai';

import { rewrapError } from './error-body-fetch';
import { isAbortError, isModelUnavailable, ModelUnavailableError, toModelUnavailable } from './model-errors';

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
});
