import { logFields, withLogFields, withRequest } from './log-context';

describe('log context', () => {
  it("puts a request's id, tenant and token user on every line logged while handling it, and on its run's lines", () => {
    const seen = withRequest('req-1', 'acme', 'alice', () => [logFields(), withLogFields({ run_id: 'r1' }, logFields)]);
    expect(seen).toEqual([
      { request_id: 'req-1', tenant_id: 'acme', user_id: 'alice' },
      { request_id: 'req-1', tenant_id: 'acme', user_id: 'alice', run_id: 'r1' },
    ]);
  });

  it("leaves user_id out for an API key's request (no user)", () => {
    expect(withRequest('req-2', 'acme', undefined, logFields)).toEqual({ request_id: 'req-2', tenant_id: 'acme', user_id: undefined });
    expect(JSON.parse(JSON.stringify(withRequest('req-2', 'acme', undefined, logFields)))).toEqual({
      request_id: 'req-2',
      tenant_id: 'acme',
    });
  });

  it('gives a queued run the id of the request that queued it, even when it runs while another request is handled', () => {
    const fields = withRequest('req-now', 'acme', undefined, () => withLogFields({ request_id: 'req-queued', run_id: 'r2' }, logFields));
    expect(fields.request_id).toBe('req-queued');
    expect(logFields()).toEqual({});
  });
});
