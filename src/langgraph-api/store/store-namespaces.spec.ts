import { ownedNamespaces } from './store-namespaces';

describe('ownedNamespaces', () => {
  const owned = [
    ['t', 'notes', 'a'],
    ['t', 'notes', 'b', 'deep'],
    ['t', 'todo', 'b'],
  ];
  const page = { limit: 10, offset: 0 };

  it('lists the namespaces without the tenant label, under the prefix and with the suffix', () => {
    expect(ownedNamespaces(owned, page)).toEqual([
      ['notes', 'a'],
      ['notes', 'b', 'deep'],
      ['todo', 'b'],
    ]);
    expect(ownedNamespaces(owned, { ...page, prefix: ['notes'] })).toEqual([
      ['notes', 'a'],
      ['notes', 'b', 'deep'],
    ]);
    expect(ownedNamespaces(owned, { ...page, suffix: ['b'] })).toEqual([['todo', 'b']]);
  });

  it('truncates to max_depth, deduplicated, then pages', () => {
    expect(ownedNamespaces(owned, { ...page, max_depth: 1 })).toEqual([['notes'], ['todo']]);
    expect(ownedNamespaces(owned, { limit: 1, offset: 1, max_depth: 1 })).toEqual([['todo']]);
  });
});
