import { defaultsFor, isGraphDefaultsJson, parseGraphDefaults } from './graph-defaults';

describe('graph defaults (LANGGRAPH_CONFIG as JSON)', () => {
  it('tells JSON from a path by its first character', () => {
    expect(isGraphDefaultsJson(' {"a": {}}')).toBe(true);
    expect(isGraphDefaultsJson('./langgraph.json')).toBe(false);
    expect(isGraphDefaultsJson(undefined)).toBe(false);
  });

  it('splits each entry into its context and the rest, its config', () => {
    const map = parseGraphDefaults('{"a": {"configurable": {"k": 1}, "context": {"m": "x"}}, "b": {"context": 3}}', 'X');
    expect(map).toEqual({ a: { config: { configurable: { k: 1 } }, context: { m: 'x' } }, b: { config: {}, context: {} } });
    expect(defaultsFor(map, 'a').context).toEqual({ m: 'x' });
    expect(defaultsFor(map, 'none')).toEqual({ config: {}, context: {} });
  });

  it('refuses what is not an object of objects, naming the source', () => {
    expect(() => parseGraphDefaults('{"a": []}', 'env of x.json')).toThrow(/env of x.json/);
    expect(() => parseGraphDefaults('{oops', 'X')).toThrow(/Invalid configuration: X/);
  });
});
