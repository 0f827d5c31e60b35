import { readSlice } from '../config/settings';
import { authSettings } from './auth.settings';

describe('auth settings', () => {
  it('defaults: open, 600 requests a minute, no CORS', () => {
    expect(readSlice(authSettings, {}).security).toEqual({
      apiKeys: [],
      metricsPublic: false,
      docsPublic: false,
      rateLimitPerMinute: 600,
      corsOrigins: [],
      upgradeInsecureRequests: false,
      maxJsonDepth: 32,
      trustedProxies: [],
    });
  });

  it('reads TRUSTED_PROXIES (addresses, CIDR ranges, loopback) and stops on anything else', () => {
    expect(readSlice(authSettings, { TRUSTED_PROXIES: '10.0.0.0/8, ::1,loopback,192.168.1.7' }).security.trustedProxies).toEqual([
      '10.0.0.0/8',
      '::1',
      'loopback',
      '192.168.1.7',
    ]);
    for (const bad of ['proxy.local', '10.0.0.0/33', '*', '10.0.0.1/8/2']) {
      expect(() => readSlice(authSettings, { TRUSTED_PROXIES: bad })).toThrow('Invalid configuration: TRUSTED_PROXIES entry');
    }
  });

  it('reads tenant:key pairs and rejects a short key without echoing it', () => {
    expect(readSlice(authSettings, { API_KEYS: 'acme:0123456789abcdef, b.c:fedcba9876543210' }).security.apiKeys).toEqual([
      { tenant: 'acme', key: '0123456789abcdef' },
      { tenant: 'b.c', key: 'fedcba9876543210' },
    ]);
    expect(() => readSlice(authSettings, { API_KEYS: 'acme:secret' })).toThrow(
      'Invalid configuration: API_KEYS entry 1 is not tenant:key (tenant [A-Za-z0-9._-], key ≥ 16 chars)',
    );
  });
});
