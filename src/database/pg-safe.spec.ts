import { pgSafeJson, pgSafeText } from './pg-safe';

describe('pgSafe', () => {
  it('removes NUL and replaces lone surrogates, keeping pairs', () => {
    expect(pgSafeText('a\u0000b\ud800c😀')).toBe('ab\ufffdc😀');
    // one at a time: each alone still takes the cleaning path
    expect(pgSafeText('\u0000')).toBe('');
    expect(pgSafeText('x\udc00')).toBe('x\ufffd');
    expect(pgSafeText('😀\ud83d')).toBe('😀\ufffd');
    for (const clean of ['plain text', '연차 휴가는 15일', '😀 paired', '']) expect(pgSafeText(clean)).toBe(clean);
  });

  it('cleans every string and key of a JSON value and cuts off deep nesting', () => {
    expect(pgSafeJson({ 'k\u0000': ['x\u0000', { y: '\udc00' }], n: 1, z: null })).toEqual({ k: ['x', { y: '\ufffd' }], n: 1, z: null });
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200; i++) deep = [deep];
    expect(JSON.stringify(pgSafeJson(deep))).toContain('[nested too deeply]');
    expect(pgSafeJson({ at: new Date(0) })).toEqual({ at: '1970-01-01T00:00:00.000Z' });
  });
});
