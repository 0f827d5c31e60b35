import { calculate, calculatorTool } from './calculator.tool';
import { currentDatetime, datetimeTool } from './datetime.tool';
import { inLanguageFirst } from './knowledge-base.tool';

describe('calculator', () => {
  it.each([
    ['2 + 3 * 4', '14'],
    ['(12 + 3) * 4 / 5', '12'],
    ['2^10', '1024'],
    ['sqrt(16)', '4'],
    ['12 × 7', '84'],
    ['10 / 4', '2.5'],
    ['1234 * 5678', '7006652'],
    ['1234567.5 * 2', '2469135'],
    ['0.1 + 0.2', '0.3'],
  ])('%s = %s', async (expr, want) => {
    await expect(calculate(expr)).resolves.toBe(want);
  });

  it.each(['', 'import({}, {})', 'evaluate("1+1")', 'createUnit("x")', '1/0', 'foo(', 'process.exit()', 'x'.repeat(600)])(
    'refuses %p',
    async (expr) => {
      await expect(calculate(expr)).rejects.toThrow();
    },
  );

  it('reports an error through the tool interface instead of returning garbage', async () => {
    await expect(calculatorTool.invoke({ expression: '1 +' })).rejects.toThrow(/calculator:/);
    await expect(calculatorTool.invoke({ expression: '6*7' })).resolves.toBe('42');
  });
});

describe('get_current_datetime', () => {
  const fixed = new Date('2026-03-01T00:30:00Z');

  it('formats the time in the requested zone', () => {
    expect(currentDatetime('Asia/Seoul', fixed)).toBe('2026-03-01T09:30:00+09:00 (Sunday, Asia/Seoul)');
    expect(currentDatetime('America/New_York', fixed)).toBe('2026-02-28T19:30:00-05:00 (Saturday, America/New_York)');
    expect(currentDatetime('UTC', fixed)).toMatch(/^2026-03-01T00:30:00\+00:00/);
  });

  it('rejects an unknown zone with a message naming it', async () => {
    expect(() => currentDatetime('Mars/Olympus')).toThrow(/Mars\/Olympus/);
    await expect(datetimeTool.invoke({ timezone: 'Not/AZone' })).rejects.toThrow(/unknown time zone/);
  });
});

describe('search_knowledge_base passage order', () => {
  const hits = [
    { content: 'LangGraph is a library for state graphs.', source: 'en.md' },
    { content: 'LangGraph는 상태 그래프로 에이전트를 만드는 라이브러리다.', source: 'ko.md' },
    { content: 'LangGraph saves state with a checkpointer.', source: 'en2.md' },
  ];

  it("puts the passages in the user's language first, keeping the rank order inside each group", () => {
    expect(inLanguageFirst(hits, 'ko').map((h) => h.source)).toEqual(['ko.md', 'en.md', 'en2.md']);
    expect(inLanguageFirst(hits, 'en').map((h) => h.source)).toEqual(['en.md', 'en2.md', 'ko.md']);
  });
});
