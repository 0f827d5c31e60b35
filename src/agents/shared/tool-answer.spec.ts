import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';

import { asUntrustedData } from '../../tools/untrusted';
import { lastToolResults, toolAnswer } from './tool-answer';

const calc = (expression: string, output: string) => ({ name: 'calculator', args: { expression }, output });
const NOW = '2026-11-29T19:04:05+09:00 (Sunday, Asia/Seoul)';

describe('toolAnswer (answers without a model)', () => {
  it('words a calculation as a sentence in the language of the message', () => {
    expect(toolAnswer([calc('(12 + 3) * 4', '60')], 'en')).toBe('(12 + 3) * 4 is 60.');
    expect(toolAnswer([calc('(12 + 3) * 4', '60')], 'ko')).toBe('(12 + 3) * 4의 값은 60입니다.');
  });

  it('falls back to English for a language without sentences of its own', () => {
    expect(toolAnswer([calc('2 + 3', '5')], 'ru')).toBe('2 + 3 is 5.');
  });

  it('answers a bare expression as itself, whatever the language', () => {
    expect(toolAnswer([calc('(12 + 3) * 4', '60')], 'ko', '(12 + 3) * 4')).toBe('(12 + 3) * 4 = 60');
    expect(toolAnswer([calc('2^10', '1024')], 'en', '2^10 =')).toBe('2^10 = 1024');
  });

  it('says what failed, without the raw tool-line prefixes', () => {
    const failed = calc('(12 + 3', 'Error: calculator: Parenthesis ) expected (char 8)');
    expect(toolAnswer([failed], 'en')).toBe('I could not calculate (12 + 3: Parenthesis ) expected (char 8).');
    expect(toolAnswer([failed], 'ko')).toBe('(12 + 3을(를) 계산하지 못했습니다: Parenthesis ) expected (char 8).');
    expect(toolAnswer([failed], 'en', '(12 + 3')).toMatch(/^I could not calculate/);
  });

  it('tells the time as a sentence, with its zone and offset', () => {
    const now = { name: 'get_current_datetime', args: {}, output: NOW };
    expect(toolAnswer([now], 'en')).toBe('In Asia/Seoul it is 19:04 on Sunday, 2026-11-29 (UTC+09:00).');
    expect(toolAnswer([now], 'ko')).toBe('Asia/Seoul 기준 지금은 2026년 11월 29일 일요일 19시 04분(UTC+09:00)입니다.');
  });

  it('names any other tool and quotes its output without the data markers', () => {
    const output = asUntrustedData('Grüezi, Ada!', { source: 'tool greet' });
    expect(toolAnswer([{ name: 'greet', args: {}, output }], 'en')).toBe('The greet tool returned: Grüezi, Ada!');
    expect(toolAnswer([{ name: 'greet', args: {}, output: 'Error: offline' }], 'ko')).toBe('greet 도구가 실패했습니다: offline.');
  });

  it('one sentence per result', () => {
    const now = { name: 'get_current_datetime', args: {}, output: NOW };
    expect(toolAnswer([calc('1 + 1', '2'), now], 'en').split('\n')).toHaveLength(2);
  });
});

describe('lastToolResults', () => {
  it('pairs each result of the last tool round with the arguments of its call', () => {
    const messages = [
      new HumanMessage('what is 2 + 2 and 3 * 3'),
      new AIMessage({
        content: '',
        tool_calls: [
          { id: 'a', name: 'calculator', args: { expression: '2 + 2' }, type: 'tool_call' },
          { id: 'b', name: 'calculator', args: { expression: '3 * 3' }, type: 'tool_call' },
        ],
      }),
      new ToolMessage({ content: '4', tool_call_id: 'a', name: 'calculator' }),
      new ToolMessage({ content: '9', tool_call_id: 'b', name: 'calculator' }),
    ];
    expect(lastToolResults(messages)).toEqual([calc('2 + 2', '4'), calc('3 * 3', '9')]);
    expect(toolAnswer(lastToolResults(messages), 'en')).toBe('2 + 2 is 4.\n3 * 3 is 9.');
  });
});
