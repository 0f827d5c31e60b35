import { isTransientDbError, withDbRetry } from './db-retry';

describe('withDbRetry', () => {
  it('retries connection failures until the write succeeds', async () => {
    let calls = 0;
    const out = await withDbRetry('w', 3, async () => {
      calls++;
      if (calls < 3) throw Object.assign(new Error('Connection terminated unexpectedly'), {});
      return 'ok';
    });
    expect(out).toBe('ok');
    expect(calls).toBe(3);
  });

  it('gives up after the configured retries', async () => {
    let calls = 0;
    const failing = withDbRetry('w', 1, async () => {
      calls++;
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    });
    await expect(failing).rejects.toThrow('ECONNREFUSED');
    expect(calls).toBe(2);
  });

  it('does not retry other errors (a constraint violation fails at once)', async () => {
    let calls = 0;
    const failing = withDbRetry('w', 5, async () => {
      calls++;
      throw Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' });
    });
    await expect(failing).rejects.toThrow('duplicate key');
    expect(calls).toBe(1);
  });

  it('knows the shapes of connection failures (pg, TypeORM driver errors, server shutdown)', () => {
    expect(isTransientDbError({ message: 'Query failed', driverError: { code: '57P01', message: 'terminating connection' } })).toBe(true);
    expect(isTransientDbError(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isTransientDbError(new Error('syntax error at or near "SELEC"'))).toBe(false);
  });

  it("knows PgBouncer's answers while Postgres is away behind it (SQLSTATE 08P01 on an open connection)", () => {
    const driverError = { code: '08P01', message: 'server login has been failing, try again later (server_login_retry)' };
    expect(isTransientDbError({ message: driverError.message, driverError })).toBe(true);
    expect(isTransientDbError(new Error('server conn crashed?'))).toBe(true);
    expect(isTransientDbError(new Error('query_wait_timeout'))).toBe(true);
  });
});
