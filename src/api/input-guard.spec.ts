import { findBadInput, uploadProblem } from './input-guard';

describe('findBadInput', () => {
  const deep = (n: number) => {
    let v: unknown = 1;
    for (let i = 0; i < n; i++) v = { a: v };
    return v;
  };

  it.each([
    [{ message: 'a\u0000b' }, /body\.message contains a NUL/],
    [{ m: { 'k\u0000': 1 } }, /key contains a NUL/],
    [{ message: 'x\ud800' }, /lone surrogate/],
    [{ message: '\udc00x' }, /lone surrogate/],
    [{ list: ['ok', ['\ud83dx']] }, /body\.list\[1\]\[0\] contains a lone surrogate/],
    [JSON.parse('{"__proto__": {"admin": true}}'), /"__proto__" is not allowed/],
    [{ a: [{ constructor: 1 }] }, /"constructor" is not allowed/],
    [{ prototype: 1 }, /"prototype" is not allowed/],
    [deep(33), /deeper than 32/],
    [deep(100_000), /deeper than 32/],
  ])('rejects %#', (value, problem) => {
    expect(findBadInput(value, 32)).toMatch(problem);
  });

  it('accepts ordinary bodies, surrogate pairs and nesting within the limit', () => {
    expect(findBadInput({ message: '안녕 😀', metadata: { a: [1, null, true, { b: 'c' }] } }, 32)).toBeNull();
    expect(findBadInput(deep(31), 32)).toBeNull();
    expect(findBadInput(undefined, 32)).toBeNull();
  });
});

describe('uploadProblem', () => {
  it('accepts UTF-8 text and refuses zip, NUL bytes and invalid UTF-8', () => {
    expect(uploadProblem(Buffer.from('제1조 (목적) 이 계약은 …'))).toBeNull();
    expect(uploadProblem(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x41]))).toMatch(/zip/);
    expect(uploadProblem(Buffer.from('abc\u0000def'))).toMatch(/NUL/);
    expect(uploadProblem(Buffer.from([0xff, 0xfe, 0x41]))).toMatch(/UTF-8/);
  });
});
