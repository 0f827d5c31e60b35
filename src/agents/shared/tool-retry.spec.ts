import { GraphInterrupt } from '@langchain/langgraph';

import { ContractNotFoundException } from '../../knowledge/contracts/contracts.service';
import { isTransientToolError, NO_RETRY, retryTransient, withRetries } from './tool-retry';

describe('tool retry policy', () => {
  it('retries only transient failures', () => {
    expect(isTransientToolError(Object.assign(new Error('connect ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isTransientToolError(new Error('timed out after 10000 ms'))).toBe(true);
    expect(isTransientToolError(new ContractNotFoundException('x'))).toBe(false);
    expect(isTransientToolError(new Error('Received tool input did not match expected schema'))).toBe(false);
  });

  it('tries a transient failure again, up to the limit; a definite one once', async () => {
    let calls = 0;
    const flaky = () => (++calls < 3 ? Promise.reject(new Error('ECONNRESET')) : Promise.resolve('ok'));
    expect(await withRetries(flaky, retryTransient(2))).toEqual({ ok: true, value: 'ok', attempts: 3 });
    calls = 0;
    expect(await withRetries(flaky, retryTransient(1))).toMatchObject({ ok: false, attempts: 2 });
    const notFound = () => Promise.reject(new ContractNotFoundException('x'));
    expect(await withRetries(notFound, retryTransient(2))).toMatchObject({ ok: false, attempts: 1 });
    calls = 0;
    expect(await withRetries(flaky, NO_RETRY)).toMatchObject({ ok: false, attempts: 1 });
  });

  it('lets a LangGraph interrupt (a pause for approval) through, never as a tool failure', async () => {
    await expect(withRetries(() => Promise.reject(new GraphInterrupt()), retryTransient(2))).rejects.toBeInstanceOf(GraphInterrupt);
  });
});
