import { parseJson } from './json';

describe('parseJson (lenient)', () => {
  it('reads plain JSON, objects and arrays', () => {
    expect(parseJson('{"a": 1}')).toEqual({ a: 1 });
    expect(parseJson(' [1, 2] ')).toEqual([1, 2]);
  });

  it('reads JSON inside a fence, inside prose, and with trailing text', () => {
    expect(parseJson('```json\n{"b": [1,2]}\n```')).toEqual({ b: [1, 2] });
    expect(parseJson('```\n{"b": 2}\n```\nDone.')).toEqual({ b: 2 });
    expect(parseJson('Sure! {"a": 1} hope that helps')).toEqual({ a: 1 });
    expect(parseJson('Here is the plan:\n["search", "answer"]\nThat is all.')).toEqual(['search', 'answer']);
    expect(parseJson('{"is_valid": true, "reason": "x"}\n\nExplanation: the {braces} here are prose')).toEqual({
      is_valid: true,
      reason: 'x',
    });
  });

  it('skips bracketed prose before the JSON', () => {
    expect(parseJson('[note] the answer is {"ok": true}')).toEqual({ ok: true });
  });

  it('repairs sloppy JSON: single quotes, trailing commas, Python literals', () => {
    expect(parseJson("{'is_valid': True, 'reason': 'ok',}")).toEqual({ is_valid: true, reason: 'ok' });
    expect(parseJson('result: ["a", "b",]')).toEqual(['a', 'b']);
  });

  it('keeps braces inside strings', () => {
    expect(parseJson('x {"text": "a } b { c"} y')).toEqual({ text: 'a } b { c' });
  });

  it('returns undefined when there is no JSON', () => {
    expect(parseJson('no json')).toBeUndefined();
    expect(parseJson('')).toBeUndefined();
    expect(parseJson('{ broken')).toBeUndefined();
  });
});
