import { InvalidIdempotencyKeyException } from '../core/errors';

const KEY = /^[\x21-\x7e]{1,255}$/;

/** The `Idempotency-Key` header, validated (undefined when absent). */
export function idempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !KEY.test(value)) throw new InvalidIdempotencyKeyException();
  return value;
}
