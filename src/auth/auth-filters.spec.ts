import { matchesFilters, metadataContainment } from './auth-filters';

describe('custom auth filters', () => {
  it('reads a value, $eq and $contains as one metadata containment', () => {
    expect(metadataContainment({ owner: 'a', team: { $eq: 'x' }, tags: { $contains: 't' }, ns: { $contains: ['u', 'v'] } })).toEqual({
      owner: 'a',
      team: 'x',
      tags: ['t'],
      ns: ['u', 'v'],
    });
  });

  it('matches metadata in memory as the platform does', () => {
    expect(matchesFilters({ owner: 'a' }, undefined)).toBe(true);
    expect(matchesFilters({ owner: 'a' }, { owner: 'a' })).toBe(true);
    expect(matchesFilters({ owner: 'b' }, { owner: { $eq: 'a' } })).toBe(false);
    expect(matchesFilters({ ns: ['a', 'b'] }, { ns: { $contains: 'a' } })).toBe(true);
    expect(matchesFilters({ ns: ['a', 'b'] }, { ns: { $contains: ['a', 'c'] } })).toBe(false);
    expect(matchesFilters({ ns: 'a' }, { ns: { $contains: 'a' } })).toBe(false);
    expect(matchesFilters(null, { owner: 'a' })).toBe(false);
  });
});
