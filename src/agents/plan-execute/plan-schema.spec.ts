import { validatePlan } from './plan-schema';
import { isChitchat, isContentOnly } from './rules';

const MANIFEST = ['calculator', 'summarize', 'search_wikipedia'];

describe('validatePlan (fail-closed)', () => {
  it('accepts a list or {plan: [...]}, inside a code fence too', () => {
    const steps = [
      { step_id: 1, tool: 'search_wikipedia', input: 'LangGraph' },
      { step_id: 2, tool: 'summarize', input_from: 'step_1' },
    ];
    expect(validatePlan(JSON.stringify(steps), MANIFEST)).toEqual({ plan: steps });
    expect(validatePlan(`\`\`\`json\n${JSON.stringify({ plan: steps })}\n\`\`\``, MANIFEST)).toEqual({ plan: steps });
    expect(validatePlan('[]', MANIFEST)).toEqual({ plan: [] });
  });

  it('accepts {"steps": [...]} (JSON mode cannot return a bare array) and prose around the JSON', () => {
    const steps = [{ step_id: 1, tool: 'calculator', input: '6*7' }];
    expect(validatePlan(JSON.stringify({ steps }), MANIFEST)).toEqual({ plan: steps });
    expect(validatePlan(JSON.stringify({ steps: [] }), MANIFEST)).toEqual({ plan: [] });
    expect(validatePlan(`Here is the plan:\n${JSON.stringify({ steps })}`, MANIFEST)).toEqual({ plan: steps });
  });

  it.each([
    ['an object without a plan', '{"step_id": 1, "tool": "calculator", "input": "1"}', 'PLAN_SCHEMA'],
    ['both keys', '{"plan": [], "steps": []}', 'PLAN_SCHEMA'],
    ['extra keys beside the plan', '{"plan": [], "note": "x"}', 'PLAN_SCHEMA'],
    ['steps that are not a list', '{"steps": {"step_id": 1}}', 'PLAN_SCHEMA'],
  ])('still fails closed on %s', (_name, text, code) => {
    expect(validatePlan(text, MANIFEST)).toEqual({ error: expect.objectContaining({ code }) });
  });

  it.each([
    ['not JSON', '[{"step_id": 1,', 'PLAN_INVALID_JSON'],
    ['prose', 'I will use the calculator', 'PLAN_INVALID_JSON'],
    ['missing input', '[{"step_id": 1, "tool": "calculator"}]', 'PLAN_SCHEMA'],
    ['unknown field', '[{"step_id": 1, "tool": "calculator", "input": "1", "shell": "rm"}]', 'PLAN_SCHEMA'],
    ['bad input_from', '[{"step_id": 1, "tool": "summarize", "input_from": "previous"}]', 'PLAN_SCHEMA'],
    [
      'forward reference',
      '[{"step_id": 1, "tool": "summarize", "input_from": "step_2"}, {"step_id": 2, "tool": "calculator", "input": "1"}]',
      'PLAN_SCHEMA',
    ],
    ['tool outside the manifest', '[{"step_id": 1, "tool": "python_repl", "input": "1"}]', 'TOOL_NOT_ALLOWED'],
  ])('%s → %s', (_name, text, code) => {
    expect(validatePlan(text, MANIFEST)).toEqual({ error: expect.objectContaining({ code }) });
  });

  it('lets a re-plan refer to steps that already succeeded', () => {
    const replan = '[{"step_id": 3, "tool": "summarize", "input_from": "step_1"}]';
    expect('plan' in validatePlan(replan, MANIFEST, [1])).toBe(true);
    expect(validatePlan(replan, MANIFEST)).toEqual({ error: expect.objectContaining({ code: 'PLAN_SCHEMA' }) });
  });
});

describe('intent rules', () => {
  it('knows chitchat and content-only input', () => {
    expect(isChitchat('안녕하세요!')).toBe(true);
    expect(isChitchat('Thanks!')).toBe(true);
    expect(isChitchat('안녕, 서울 날씨 알려줘')).toBe(false);
    expect(isContentOnly('매출은 증가했다. '.repeat(30))).toBe(true);
    expect(isContentOnly(`${'매출은 증가했다. '.repeat(30)} 요약해줘`)).toBe(false);
    expect(isContentOnly('짧은 글')).toBe(false);
  });
});
