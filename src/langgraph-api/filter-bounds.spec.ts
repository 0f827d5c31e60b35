import { boundedFilter, FILTER_LIMITS, filterBoundsProblem } from './filter-bounds';

const list = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
const nested = (levels: number): Record<string, unknown> => (levels === 0 ? { leaf: 1 } : { n: nested(levels - 1) });

describe('search filter bounds', () => {
  it.each<[string, unknown]>([
    ['a plain filter', { owner: 'alice', 팀: '개발팀', n: { $gt: 3 } }],
    ['an $in list at the limit', { f: { $in: list(FILTER_LIMITS.values) } }],
    ['nesting just under the limit', nested(FILTER_LIMITS.depth - 2)],
    ['a key at the limit', { ['k'.repeat(FILTER_LIMITS.keyChars)]: 1 }],
    ['an empty filter', {}],
  ])('accepts %s', (_why, filter) => {
    expect(filterBoundsProblem(filter)).toBeNull();
  });

  it.each<[string, unknown, string]>([
    ['70,000 $in values', { f: { $in: list(70_000) } }, `over the limit of ${FILTER_LIMITS.values} values per filter`],
    ['values spread over many keys', Object.fromEntries(list(FILTER_LIMITS.values + 1).map((v) => [v, 1])), 'values per filter'],
    ['values spread over several lists', { a: { $in: list(600) }, b: { $nin: list(600) } }, 'values per filter'],
    ['deep nesting', nested(50), `nested over the limit of ${FILTER_LIMITS.depth} levels`],
    ['nested lists', { f: [[[[[[[[[['x']]]]]]]]]] }, 'levels'],
    [
      'a huge key',
      { ['k'.repeat(100_000)]: 1 },
      `a key of 100000 characters, over the limit of ${FILTER_LIMITS.keyChars} characters per key`,
    ],
    [
      'a huge Korean value',
      { f: '가'.repeat(FILTER_LIMITS.jsonChars) },
      `over the limit of ${FILTER_LIMITS.jsonChars} characters per filter`,
    ],
  ])('refuses %s, naming the limit', (_why, filter, message) => {
    expect(filterBoundsProblem(filter)).toContain(message);
  });

  it('refuses through the body schema with the limit in the message', () => {
    const parsed = boundedFilter.safeParse({ f: { $in: list(70_000) } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0].message).toBe(`over the limit of ${FILTER_LIMITS.values} values per filter`);
  });
});
