import { randomFillSync, type webcrypto } from 'node:crypto';

/**
 * LangChain and langsmith take 16 bytes from `crypto.getRandomValues` for every UUID they make, and langsmith makes
 * a UUIDv7 for every runnable call, tracing or not (~90 per react turn): one trip into the crypto binding each,
 * 4.5 % of an API process's CPU under load. Installed, small `Uint8Array` requests are served from a pool refilled
 * 4 KiB at a time by the same CSPRNG (as Node's own `randomUUID` and the `uuid` package do); no byte is handed out
 * twice, and anything else goes to the original.
 *
 * Relies on (langsmith 0.12.0, whose `uuid7` and LangChain's `v4` draw from `crypto.getRandomValues`; the canary
 * is pooled-random-values.spec.ts): the libraries reading `globalThis.crypto.getRandomValues` at each call, not a
 * reference taken at load time, and asking for at most 16 bytes at once. Installed by installPlatformPatches
 * (every entry point: `main.ts`, `worker.ts`, the embeddable module — a host's process gets the same pool: the
 * bytes come from the same CSPRNG, only in larger draws); installed once per `crypto` object.
 */
const POOL_BYTES = 4096;
const MAX_POOLED = 256;

/** marks a pooled `getRandomValues`: installing twice on one `crypto` object keeps the first pool */
const POOLED = Symbol.for('agent-orchestrator.pooledRandomValues');

type RandomSource = Pick<webcrypto.Crypto, 'getRandomValues'>;

export function poolRandomValues(target: RandomSource = globalThis.crypto): void {
  if ((target.getRandomValues as { [POOLED]?: true })[POOLED]) return;
  const original = target.getRandomValues.bind(target);
  const pool = new Uint8Array(POOL_BYTES);
  let next = POOL_BYTES;
  target.getRandomValues = (array) => {
    if (!(array instanceof Uint8Array) || array.length > MAX_POOLED) return original(array);
    if (next + array.length > POOL_BYTES) {
      randomFillSync(pool);
      next = 0;
    }
    array.set(pool.subarray(next, next + array.length));
    next += array.length;
    return array;
  };
  Object.defineProperty(target.getRandomValues, POOLED, { value: true });
}
