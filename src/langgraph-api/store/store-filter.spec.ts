import { checkStoreFilter, comparesNumbers, storeFilterProblem } from './store-filter';

describe('store search filters', () => {
  it('accepts what PostgresStore applies as asked', () => {
    for (const filter of [
      { a: 1 },
      { a: 'x', b: { nested: true } },
      { a: { $gt: 1, $lte: 2.5 } },
      { a: { $eq: 'x' }, b: { $ne: 3 } },
      { a: { $in: ['x', 1] }, b: { $nin: [2] } },
      { a: { $exists: false } },
    ]) {
      expect(storeFilterProblem(filter)).toBeNull();
    }
  });

  it.each([
    [{ a: { $gt: 'abc' } }, /filter\.a\.\$gt: compares numbers; got "abc"/],
    [{ a: { $gte: Infinity } }, /\$gte: compares numbers/],
    [{ a: { $lt: null } }, /\$lt: compares numbers; got null/],
    [{ a: { $lte: [1] } }, /\$lte/],
    [{ a: { $in: [] } }, /\$in: needs a non-empty list/],
    [{ a: { $nin: 'x' } }, /\$nin: needs a non-empty list/],
    [{ a: { $exists: 'yes' } }, /\$exists: needs true or false/],
    [{ a: { $regex: 'x' } }, /unknown operator/],
    [{ a: { $gt: 1, other: 2 } }, /filter\.a\.other: unknown operator/],
  ])('refuses %j', (filter, problem) => {
    expect(storeFilterProblem(filter as Record<string, unknown>)).toMatch(problem);
  });

  it('refuses a filter past the search filter bounds in the service too (422 naming the limit)', () => {
    const huge = { a: { $in: Array.from({ length: 70_000 }, (_, i) => i) } };
    expect(() => checkStoreFilter(huge)).toThrow('filter: over the limit of 1000 values per filter');
    const refusal = (() => {
      try {
        checkStoreFilter(huge);
      } catch (err) {
        return err;
      }
    })();
    expect(refusal).toMatchObject({ status: 422, code: 'VALIDATION_FAILED' });
    expect(() => checkStoreFilter({ a: { $in: [1, 2] } })).not.toThrow();
  });

  it('tells a numeric comparison apart', () => {
    expect(comparesNumbers({ a: { $gt: 1 } })).toBe(true);
    expect(comparesNumbers({ a: { $eq: 1 }, b: 2 })).toBe(false);
    expect(comparesNumbers(null)).toBe(false);
  });
});
