import { RunTree } from 'langsmith/run_trees';

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

  it('installs once per crypto object: a second install keeps the first pool', () => {
    const { target } = pooled();
    const first = target.getRandomValues;
    poolRandomValues(target);
    expect(target.getRandomValues).toBe(first);
  });

  it('canary: langsmith draws a RunTree id from globalThis.crypto.getRandomValues at each call, a few bytes at a time', () => {
    const before = globalThis.crypto.getRandomValues;
    const asked: unknown[] = [];
    globalThis.crypto.getRandomValues = <T extends Exclude<NodeJS.TypedArray, Float32Array | Float64Array>>(array: T): T => {
      asked.push(array);
      before.call(globalThis.crypto, array); // fills the array in place
      return array;
    };
    try {
      const tree = new RunTree({ name: 'canary', tracingEnabled: false });
      expect(tree.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/); // a UUIDv7
      expect(asked.length).toBeGreaterThan(0);
      for (const array of asked) {
        expect(array).toBeInstanceOf(Uint8Array);
        expect((array as Uint8Array).length).toBeLessThanOrEqual(16); // served from the pool (≤ 256 bytes)
      }
    } finally {
      globalThis.crypto.getRandomValues = before;
    }
  });
});
