import { AppConfig } from './app-config';
import { resolveConfig } from './config-source';

describe('resolveConfig', () => {
  it('passes a built AppConfig through untouched (built once per process)', () => {
    const config = new AppConfig({ PORT: '4100' });
    expect(resolveConfig(config)).toBe(config);
  });

  it('reads an environment into a new AppConfig (tests and benchmarks pass env objects)', () => {
    const config = resolveConfig({ PORT: '4200', MAX_ITERATIONS: '3' });
    expect(config).toBeInstanceOf(AppConfig);
    expect(config.port).toBe(4200);
  });

  it('rejects an invalid environment with the setting named', () => {
    expect(() => resolveConfig({ PORT: 'abc' })).toThrow(/PORT/);
  });
});
