import { AUTH_FILTER_LIMITS, AuthFilterError, clausesOf, matchesFilters, metadataContainment, parseAuthFilters } from './auth-filters';

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

  it('matches Korean and English values alike, exactly (no case or normalization folding)', () => {
    expect(matchesFilters({ team: '개발팀' }, { team: '개발팀' })).toBe(true);
    expect(matchesFilters({ team: '개발팀' }, { team: '개발' })).toBe(false);
    expect(matchesFilters({ team: 'Red' }, { team: 'red' })).toBe(false);
    expect(matchesFilters({ tags: ['한국어', 'en'] }, { tags: { $contains: ['한국어'] } })).toBe(true);
    expect(metadataContainment(parseAuthFilters({ 팀: { $eq: '개발팀' } }))).toEqual({ 팀: '개발팀' });
  });

  it('does not read an inherited property as the metadata value', () => {
    expect(matchesFilters({}, { toString: 'x' })).toBe(false);
    expect(matchesFilters(Object.create({ owner: 'a' }) as Record<string, unknown>, { owner: 'a' })).toBe(false);
  });
});

/** a filter object whose own key is `__proto__` (as JSON.parse makes it; an object literal sets the prototype instead) */
const ownProto = (value: unknown) => JSON.parse(`{"owner": "mallory", "__proto__": ${JSON.stringify(value)}}`) as unknown;
const nullProto = (entries: Record<string, unknown>) => Object.assign(Object.create(null) as object, entries);
const withNullProtoKey = (key: string) => {
  const o = Object.create(null) as Record<string, unknown>;
  o[key] = 'x'; // on a null-prototype object even `__proto__` is an own key
  return o;
};

/** what a handler may return and the service must refuse (500, logged), never apply as a wider (or other) view */
const HOSTILE: Array<[string, unknown]> = [
  ['an object literal with __proto__ (sets the prototype: no own key)', { __proto__: { owner: 'x' } }],
  ['an object literal with __proto__ beside a key', { owner: 'x', __proto__: { team: 'y' } }],
  ['JSON.parse with an own __proto__ key', ownProto({ owner: 'x' })],
  ['JSON.parse with an own __proto__ key holding a string', ownProto('x')],
  ['a null-prototype object with __proto__', withNullProtoKey('__proto__')],
  ['a null-prototype object with constructor', withNullProtoKey('constructor')],
  ['a null-prototype object with prototype', withNullProtoKey('prototype')],
  ['JSON.parse with constructor', JSON.parse('{"constructor": {"prototype": {"owner": "x"}}}')],
  ['$or', { $or: [{ owner: 'a' }, { owner: 'b' }] }],
  ['$and', { $and: [{ owner: 'a' }] }],
  ['$ne', { owner: { $ne: 'x' } }],
  ['$in', { owner: { $in: ['a', 'b'] } }],
  ['$exists', { owner: { $exists: true } }],
  ['an unknown operator beside $eq', { owner: { $eq: 'a', $ne: 'b' } }],
  ['$eq and $contains together', { tags: { $eq: 'a', $contains: 'b' } }],
  ['an empty operand', { owner: {} }],
  ['a nested object (containment in SQL, identity in memory)', { team: { name: 'red' } }],
  ['a nested null-prototype object', { team: nullProto({ name: 'red' }) }],
  ['a bare list (containment in SQL, identity in memory)', { tags: ['a'] }],
  ['$eq of an object', { owner: { $eq: { id: 'x' } } }],
  ['$eq of a list', { owner: { $eq: ['x'] } }],
  ['$contains of an object', { tags: { $contains: { a: 1 } } }],
  ['$contains of a nested list', { tags: { $contains: [['a']] } }],
  ['$contains of a sparse list', { tags: { $contains: [, 'a'] } }], // eslint-disable-line no-sparse-arrays
  ['a Date', { since: new Date(0) }],
  ['a Map', { owner: new Map([['owner', 'x']]) }],
  ['a Set', { tags: { $contains: new Set(['a']) } }],
  ['a RegExp', { owner: /.*/ }],
  ['a class instance', { owner: new (class Owner {})() }],
  ['undefined (JSON drops it: the whole tenant in SQL)', { owner: undefined }],
  ['a function', { owner: () => 'x' }],
  ['a symbol value', { owner: Symbol('x') }],
  ['a bigint', { owner: BigInt(1) }],
  ['NaN', { n: NaN }],
  ['Infinity', { n: Infinity }],
  ['a symbol key', { [Symbol('owner')]: 'x' }],
  ['a NUL in a value', { owner: 'a\u0000b' }],
  ['a lone surrogate in a value', { owner: 'a\ud800' }],
  ['a NUL in a key', { 'own\u0000er': 'a' }],
  ['a key too long', { ['k'.repeat(AUTH_FILTER_LIMITS.keyChars + 1)]: 'a' }],
  ['a value too long', { owner: 'v'.repeat(AUTH_FILTER_LIMITS.stringChars + 1) }],
  ['too many keys', Object.fromEntries(Array.from({ length: AUTH_FILTER_LIMITS.keys + 1 }, (_, i) => [`k${i}`, 'v']))],
  ['too many list values', { tags: { $contains: Array.from({ length: AUTH_FILTER_LIMITS.listValues + 1 }, (_, i) => `t${i}`) } }],
  ['a list as the filter', [{ owner: 'x' }]],
  ['a string as the filter', 'owner'],
  ['a number as the filter', 1],
  ['a Date as the filter', new Date(0)],
  ['a Map as the filter', new Map([['owner', 'x']])],
  ['an object with another prototype', Object.create({ owner: 'x' }) as object],
  // JSON.stringify would call it: the SQL side would get another filter than the in-memory side
  ['an own toJSON', { owner: 'x', toJSON: () => ({}) }],
  ['a toJSON beside $eq', { owner: { $eq: 'x', toJSON: () => 'y' } }],
  ['an inherited toJSON', Object.assign(Object.create({ toJSON: () => ({}) }) as object, { owner: 'x' })],
];

describe('parseAuthFilters: a filter the service cannot apply exactly is refused', () => {
  it.each(HOSTILE)('refuses %s', (_why, filter) => {
    expect(() => parseAuthFilters(filter)).toThrow(AuthFilterError);
  });

  it('refuses a Proxy whose traps throw (the handler answers 500, not a wider view)', () => {
    const trap = () => {
      throw new Error('trap');
    };
    expect(() => parseAuthFilters(new Proxy({ owner: 'x' }, { ownKeys: trap }))).toThrow();
    expect(() => parseAuthFilters(new Proxy({ owner: 'x' }, { getPrototypeOf: trap }))).toThrow();
  });

  it('reads a non-enumerable key too (Object.entries would have skipped it: a wider view)', () => {
    const filter = Object.defineProperty({ team: 'red' }, 'owner', { value: 'alice', enumerable: false });
    expect({ ...parseAuthFilters(filter) }).toEqual({ team: 'red', owner: 'alice' });
    expect(matchesFilters({ team: 'red', owner: 'bob' }, parseAuthFilters(filter))).toBe(false);
  });

  it('reads a getter once: the filter it answers is the one applied, later changes do not reach it', () => {
    let calls = 0;
    const filter = {
      get owner() {
        calls += 1;
        return calls === 1 ? 'alice' : 'bob';
      },
    };
    const parsed = parseAuthFilters(filter);
    expect(metadataContainment(parsed)).toEqual({ owner: 'alice' });
    expect(matchesFilters({ owner: 'alice' }, parsed)).toBe(true);
    expect(calls).toBe(1);
  });
});

/** what a handler may return and the service applies: the same filter in SQL (containment) and in memory */
const ACCEPTED: Array<[string, unknown, Record<string, unknown>]> = [
  ['a value', { owner: 'alice' }, { owner: 'alice' }],
  ['Korean keys and values', { 소유자: '앨리스' }, { 소유자: '앨리스' }],
  ['$eq', { owner: { $eq: 'alice' } }, { owner: 'alice' }],
  ['numbers, booleans and null', { n: 1, b: false, z: null }, { n: 1, b: false, z: null }],
  ['$contains of a value', { tags: { $contains: 'a' } }, { tags: ['a'] }],
  ['$contains of a list', { tags: { $contains: ['a', 'b'] } }, { tags: ['a', 'b'] }],
  ['$contains of an empty list (any list)', { tags: { $contains: [] } }, { tags: [] }],
  ['a null-prototype filter', nullProto({ owner: 'alice' }), { owner: 'alice' }],
  ['a null-prototype operand', { owner: nullProto({ $eq: 'alice' }) }, { owner: 'alice' }],
  ['JSON.parse of a plain filter', JSON.parse('{"owner": {"$eq": "alice"}}'), { owner: 'alice' }],
  ['a frozen filter', Object.freeze({ owner: 'alice' }), { owner: 'alice' }],
  ['an empty filter (the whole tenant, as the platform reads it)', {}, {}],
];

describe('parseAuthFilters: an applicable filter, applied alike in SQL and in memory', () => {
  it.each(ACCEPTED)('accepts %s', (_why, filter, containment) => {
    const parsed = parseAuthFilters(filter);
    expect(Object.getPrototypeOf(parsed)).toBeNull();
    expect(Object.isFrozen(parsed)).toBe(true);
    expect(metadataContainment(parsed)).toEqual(containment);
    // the metadata the containment describes passes the in-memory check too
    expect(matchesFilters(containment, parsed)).toBe(true);
  });

  it('parses its own output to the same clauses (the services may read a parsed filter again)', () => {
    const parsed = parseAuthFilters({ owner: 'a', tags: { $contains: ['x'] } });
    expect(clausesOf(parseAuthFilters(parsed))).toEqual(clausesOf(parsed));
  });

  it('refuses in the services too what was never parsed (fail closed, not a wider view)', () => {
    expect(() => metadataContainment({ owner: { $ne: 'x' } })).toThrow(AuthFilterError);
    expect(() => matchesFilters({ owner: 'x' }, { __proto__: { owner: 'y' } } as never)).toThrow(AuthFilterError);
  });
});
