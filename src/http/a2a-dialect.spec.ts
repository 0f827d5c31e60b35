import { dialectOf } from './dialect';
import { renderError } from './error-rendering';

describe('the A2A JSON-RPC endpoint as an error dialect', () => {
  it('is POST /a2a/{id} only (also under a prefix); its card and REST v1 keep theirs', () => {
    expect(dialectOf('/a2a/react')).toBe('a2a');
    expect(dialectOf('/agents/a2a/react')).toBe('a2a');
    expect(dialectOf('/a2a/react/.well-known/agent-card.json')).toBe('langgraph');
    expect(dialectOf('/v1/a2a/react')).toBe('rest');
  });

  it('answers an unreadable body as a JSON-RPC parse error (HTTP 200), and keeps the status of a refused credential', () => {
    const parse = renderError({ status: 400, code: 'INVALID_JSON', message: 'request body is not valid JSON' }, 'a2a');
    expect(parse.status).toBe(200);
    expect(JSON.parse(parse.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'request body is not valid JSON', data: { code: 'INVALID_JSON' } },
    });
    const depth = renderError({ status: 400, code: 'INVALID_INPUT', message: 'too deep' }, 'a2a');
    expect(JSON.parse(depth.body).error.code).toBe(-32600);
    const auth = renderError({ status: 401, code: 'UNAUTHORIZED', message: 'no key', headers: { 'WWW-Authenticate': 'Bearer' } }, 'a2a');
    expect(auth.status).toBe(401);
    expect(auth.headers).toMatchObject({ 'WWW-Authenticate': 'Bearer', 'X-Error-Code': 'UNAUTHORIZED' });
    expect(JSON.parse(auth.body).error.code).toBe(-32600);
    expect(JSON.parse(renderError({ status: 500, code: 'INTERNAL_ERROR', message: 'internal error' }, 'a2a').body).error.code).toBe(-32603);
  });
});
