import { breakerFor, breakerStates, CircuitBreaker, resetBreakers } from './circuit-breaker';
import { isModelUnavailable, ModelUnavailableError } from './model-errors';

describe('CircuitBreaker', () => {
  let now = 0;
  const clock = () => now;
  const settings = { failures: 3, windowMs: 10_000, cooldownMs: 30_000 };
  beforeEach(() => {
    now = 1_000_000;
  });

  it('opens after N consecutive failures and then fails fast with MODEL_UNAVAILABLE', () => {
    const b = new CircuitBreaker('http://m/v1', settings, clock);
    for (let i = 0; i < 2; i++) {
      b.acquire();
      b.failure();
    }
    expect(b.state).toBe('closed');
    b.acquire();
    b.failure();
    expect(b.state).toBe('open');
    let err: unknown;
    try {
      b.acquire();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ModelUnavailableError);
    expect(err).toMatchObject({ code: 'MODEL_UNAVAILABLE', breakerOpen: true, message: expect.stringMatching(/circuit breaker is open/) });
    expect(isModelUnavailable(err)).toBe(true);
  });

  it('a success resets the count; failures further apart than the window do not add up', () => {
    const b = new CircuitBreaker('e', settings, clock);
    b.failure();
    b.failure();
    b.success();
    b.failure();
    b.failure();
    expect(b.state).toBe('closed');
    now += 11_000;
    b.failure();
    expect(b.snapshot().consecutiveFailures).toBe(1);
    expect(b.state).toBe('closed');
  });

  it('half-open after the cool-down: one probe passes; success closes, failure reopens', () => {
    const b = new CircuitBreaker('e', settings, clock);
    for (let i = 0; i < 3; i++) b.failure();
    now += 29_999;
    expect(() => b.acquire()).toThrow(ModelUnavailableError);
    now += 1;
    expect(b.state).toBe('half_open');
    b.acquire(); // the probe
    expect(() => b.acquire()).toThrow(/circuit breaker is open/); // only one probe at a time
    b.failure();
    expect(b.state).toBe('open');
    expect(b.snapshot().retryAt).toBe(now + 30_000);
    now += 30_000;
    b.acquire();
    b.success();
    expect(b.state).toBe('closed');
    expect(() => b.acquire()).not.toThrow();
  });

  it('a cancelled probe frees the slot for the next one', () => {
    const b = new CircuitBreaker('e', settings, clock);
    for (let i = 0; i < 3; i++) b.failure();
    now += 30_000;
    b.acquire();
    b.release();
    expect(() => b.acquire()).not.toThrow();
  });

  it('one breaker per endpoint in the process, listed for metrics', () => {
    resetBreakers();
    const a = breakerFor('http://a/v1', settings);
    expect(breakerFor('http://a/v1')).toBe(a);
    breakerFor('http://b/v1');
    expect(breakerStates()).toEqual([
      { endpoint: 'http://a/v1', state: 'closed', consecutiveFailures: 0, retryAt: null },
      { endpoint: 'http://b/v1', state: 'closed', consecutiveFailures: 0, retryAt: null },
    ]);
    resetBreakers();
  });
});
