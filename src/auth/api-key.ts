import { createHash, randomBytes } from 'node:crypto';

/** SHA-256 of a key, hex: what is stored and compared (the key itself is never stored or logged). */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new random key: `ak_` + 32 random bytes (base64url). */
export function newKey(): string {
  return `ak_${randomBytes(32).toString('base64url')}`;
}
