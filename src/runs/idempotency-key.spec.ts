import { InvalidIdempotencyKeyException } from '../core/errors';
import { idempotencyKey } from './idempotency-key';

describe('idempotencyKey', () => {
  it('accepts 1–255 visible ASCII characters and no header at all', () => {
    expect(idempotencyKey(undefined)).toBeUndefined();
    expect(idempotencyKey('order-42:retry')).toBe('order-42:retry');
    expect(idempotencyKey('k'.repeat(255))).toHaveLength(255);
  });

  it('refuses empty, too long, spaces, control and non-ASCII characters with a 400', () => {
    for (const bad of ['', 'k'.repeat(256), 'a b', 'a\u0000b', '키']) {
      expect(() => idempotencyKey(bad)).toThrow(InvalidIdempotencyKeyException);
    }
  });
});
