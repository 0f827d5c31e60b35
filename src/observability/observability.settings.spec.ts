import { readSlice } from '../config/settings';
import { observabilitySettings } from './observability.settings';

describe('observability settings', () => {
  it('defaults: json logs at `log`, tracing off', () => {
    expect(readSlice(observabilitySettings, {})).toEqual({
      logLevel: 'log',
      logFormat: 'json',
      tracing: { endpoint: undefined, serviceName: 'agent-orchestrator' },
    });
  });

  it('reads `text` as `pretty` and rejects an unknown level', () => {
    expect(readSlice(observabilitySettings, { LOG_FORMAT: 'text' }).logFormat).toBe('pretty');
    expect(() => readSlice(observabilitySettings, { LOG_LEVEL: 'trace' })).toThrow(/^Invalid configuration: LOG_LEVEL: /);
  });
});
