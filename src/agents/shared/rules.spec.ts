import { bareExpression, ruleToolCall } from './rules';

describe('rules', () => {
  const expressionOf = (message: string) => ruleToolCall(message)?.args.expression;

  it('finds an expression written with symbols or with operator words', () => {
    expect(expressionOf('what is 15 * 3 please')).toBe('15 * 3');
    expect(expressionOf('What is 12 times 7?')).toBe('12 * 7');
    expect(expressionOf('20 divided by 4')).toBe('20 / 4');
    expect(expressionOf('3 plus 4 minus 2')).toBe('3 + 4 - 2');
    expect(expressionOf('12 곱하기 7은?')).toBe('12 * 7');
    expect(expressionOf('100 나누기 8')).toBe('100 / 8');
  });

  it('keeps the parentheses of an expression cut from a sentence, in any language', () => {
    expect(expressionOf('What is (12 + 3) * 4?')).toBe('(12 + 3) * 4');
    expect(expressionOf('(12 + 3) * 4는 얼마야?')).toBe('(12 + 3) * 4');
    expect(expressionOf("Calcule (2+3)*4 s'il te plaît")).toBe('(2+3)*4');
    expect(expressionOf('Wie viel ist 2 * (3 + (4 - 1))?')).toBe('2 * (3 + (4 - 1))');
    expect(expressionOf('(12 곱하기 (3 더하기 1))은?')).toBe('(12 * (3 + 1))');
    expect(expressionOf('what is 0.5 + 2.')).toBe('0.5 + 2');
  });

  it('drops only the parentheses of the sentence around an expression', () => {
    expect(expressionOf('the total (that is 12 + 3) is wrong')).toBe('12 + 3');
    expect(expressionOf('compute 4 * (2 + 1 (please)')).toBe('4 * 2 + 1');
  });

  it('leaves words that are not between numbers alone', () => {
    expect(ruleToolCall('three times a day')).toBeNull();
    expect(ruleToolCall('plus one for this idea')).toBeNull();
    expect(ruleToolCall('tell me a joke')).toBeNull();
  });

  it('asks the datetime tool for the zone or city the question names, else for its default', () => {
    expect(ruleToolCall('What time is it in Berlin?')?.args).toEqual({ timezone: 'Europe/Berlin' });
    expect(ruleToolCall("What's the time in Europe/Lisbon?")?.args).toEqual({ timezone: 'Europe/Lisbon' });
    expect(ruleToolCall('뉴욕은 지금 몇 시야?')?.args).toEqual({ timezone: 'America/New_York' });
    expect(ruleToolCall('What time is it?')).toMatchObject({ name: 'get_current_datetime', args: {} });
  });

  it('keeps a bare expression for the calculator alone; words are not bare', () => {
    expect(bareExpression('(12 + 3) * 4 =')).toBe('(12 + 3) * 4');
    expect(bareExpression('12 times 7')).toBeNull();
  });
});
