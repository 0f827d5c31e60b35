import { logFields, withLogFields, withRequest } from './log-context';

describe('log context', () => {
  it("puts a request's tenant and token user on every line logged while handling it, and on its run's lines", () => {
    const seen = withRequest('req-1', 'acme', 'alice', () => [logFields(), withLogFields({ run_id: 'r1' }, logFields)]);
    expect(seen).toEqual([
      { tenant_id: 'acme', user_id: 'alice' },
      { tenant_id: 'acme', user_id: 'alice', run_id: 'r1' },
    ]);
  });

  it("leaves user_id out for an API key's request (no user)", () => {
    expect(withRequest('req-2', 'acme', undefined, logFields)).toEqual({ tenant_id: 'acme', user_id: undefined });
    expect(JSON.parse(JSON.stringify(withRequest('req-2', 'acme', undefined, logFields)))).toEqual({ tenant_id: 'acme' });
  });
});
