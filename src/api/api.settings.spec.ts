import { readSlice } from '../config/settings';
import { apiSettings } from './api.settings';

describe('api settings', () => {
  it('defaults', () => {
    expect(readSlice(apiSettings, {})).toEqual({
      env: 'development',
      port: 3000,
      host: '0.0.0.0',
      webConcurrency: 1,
      phaseTimings: false,
      maxMessageChars: 32_000,
      maxBodyBytes: 1_048_576,
    });
  });

  it('rejects a body limit under 1 KiB with the variable named', () => {
    expect(() => readSlice(apiSettings, { MAX_BODY_BYTES: '10' })).toThrow(/^Invalid configuration: MAX_BODY_BYTES: /);
  });
});
