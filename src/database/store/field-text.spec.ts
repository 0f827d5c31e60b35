import { textsAt } from './field-text';

describe('textsAt', () => {
  const value = { text: '한국어 메모', n: 3, tags: ['a', 'b'], items: [{ t: 'x' }, { t: 'y' }], nested: { k: true } };

  it('reads the whole value, fields, indexes and wildcards as LangGraph embeds them', () => {
    expect(textsAt(value, '$')).toEqual([JSON.stringify(value, null, 2)]);
    expect(textsAt(value, 'text')).toEqual(['한국어 메모']);
    expect(textsAt(value, 'n')).toEqual(['3']);
    expect(textsAt(value, 'tags[*]')).toEqual(['a', 'b']);
    expect(textsAt(value, 'tags[-1]')).toEqual(['b']);
    expect(textsAt(value, 'items[*].t')).toEqual(['x', 'y']);
    expect(textsAt(value, 'nested')).toEqual([JSON.stringify({ k: true }, null, 2)]);
    expect(textsAt(value, 'missing.deeper')).toEqual([]);
    expect(textsAt(value, 'tags[9]')).toEqual([]);
  });
});
