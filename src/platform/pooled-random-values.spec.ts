import { poolRandomValues } from './pooled-random-values';

describe('poolRandomValues', () => {
  function pooled() {
    const calls: unknown[] = [];
    const target = {
      getRandomValues: <T extends Exclude<NodeJS.TypedArray, Float32Array | Float64Array>>(array: T): T => {
        calls.push(array);
        return array;
      },
    };
    poolRandomValues(target);
    return { target, calls };
  }

  it('serves small byte arrays from the pool, never the same bytes twice, across refills', () => {
    const { target, calls } = pooled();
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const bytes = target.getRandomValues(new Uint8Array(16)); // 16 000 bytes: the 4 KiB pool refills 3 times
      const hex = Buffer.from(bytes).toString('hex');
      expect(seen.has(hex)).toBe(false);
      seen.add(hex);
    }
    expect(calls).toHaveLength(0); // the original was never asked
    const all = [...seen].join('');
    expect(new Set(all).size).toBe(16); // every hex digit occurs: random bytes, not zeros
  });

  it('hands large arrays and other typed arrays to the original', () => {
    const { target, calls } = pooled();
    const big = new Uint8Array(1024);
    const words = new Uint32Array(4);
    expect(target.getRandomValues(big)).toBe(big);
    expect(target.getRandomValues(words)).toBe(words);
    expect(calls).toEqual([big, words]);
  });

  it('installs on the global crypto: UUIDs and random values keep working', () => {
    const before = globalThis.crypto.getRandomValues;
    try {
      poolRandomValues();
      const a = globalThis.crypto.getRandomValues(new Uint8Array(16));
      const b = globalThis.crypto.getRandomValues(new Uint8Array(16));
      expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
      expect(globalThis.crypto.getRandomValues(new Uint32Array(2))).toHaveLength(2);
      expect(globalThis.crypto.randomUUID()).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      globalThis.crypto.getRandomValues = before;
    }
  });
});
