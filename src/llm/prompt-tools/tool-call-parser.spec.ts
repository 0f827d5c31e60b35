import { type ParsedReply, parseToolCallReply } from './tool-call-parser';

const TOOLS = ['search_knowledge_base', 'calculator', 'get_weather', 'web_search', 'get_current_datetime'];
type Expect =
  | { call: string; input: Record<string, unknown>; repaired?: boolean; thought?: RegExp }
  | { final: string | RegExp }
  | { formatError: true }
  | { unknown: string };

const cases: Array<[string, string, Expect]> = [
  // ── format 1: ReAct ──
  [
    'react standard',
    'Thought: 휴가 정책 질문입니다.\nAction: search_knowledge_base\nAction Input: {"query": "휴가 정책"}',
    { call: 'search_knowledge_base', input: { query: '휴가 정책' }, repaired: false, thought: /휴가 정책 질문/ },
  ],
  [
    'react without thought',
    'Action: calculator\nAction Input: {"expression": "2+2"}',
    { call: 'calculator', input: { expression: '2+2' } },
  ],
  [
    'react blank line between',
    'Action: calculator\n\nAction Input: {"expression": "3*3"}',
    { call: 'calculator', input: { expression: '3*3' } },
  ],
  [
    'react lower-case labels',
    'action: calculator\naction input: {"expression": "1+1"}',
    { call: 'calculator', input: { expression: '1+1' } },
  ],
  ['react full-width colon', 'Action： get_weather\nAction Input： {"city": "Seoul"}', { call: 'get_weather', input: { city: 'Seoul' } }],
  [
    'react markdown bold',
    '**Action:** calculator\n**Action Input:** {"expression": "5-1"}',
    { call: 'calculator', input: { expression: '5-1' } },
  ],
  [
    'react backticked tool name',
    'Action: `web_search`\nAction Input: {"query": "LangGraph"}',
    { call: 'web_search', input: { query: 'LangGraph' } },
  ],
  [
    'react multi-line JSON',
    'Action: web_search\nAction Input: {\n  "query": "nestjs bullmq",\n  "max_results": 3\n}',
    { call: 'web_search', input: { query: 'nestjs bullmq', max_results: 3 } },
  ],
  [
    'react nested JSON values',
    'Action: web_search\nAction Input: {"query": "x", "filters": {"lang": ["ko", "en"], "recent": true}}',
    { call: 'web_search', input: { query: 'x', filters: { lang: ['ko', 'en'], recent: true } } },
  ],
  [
    'react input in code fence',
    'Action: calculator\nAction Input: ```json\n{"expression": "7*6"}\n```',
    { call: 'calculator', input: { expression: '7*6' }, repaired: true },
  ],
  [
    'react single quotes repaired',
    "Action: search_knowledge_base\nAction Input: {'query': '연차 규정'}",
    { call: 'search_knowledge_base', input: { query: '연차 규정' }, repaired: true },
  ],
  [
    'react trailing comma repaired',
    'Action: calculator\nAction Input: {"expression": "9/3",}',
    { call: 'calculator', input: { expression: '9/3' }, repaired: true },
  ],
  [
    'react unquoted keys repaired',
    'Action: get_weather\nAction Input: {city: "Busan", units: "metric"}',
    { call: 'get_weather', input: { city: 'Busan', units: 'metric' }, repaired: true },
  ],
  [
    'react python literals repaired',
    "Action: web_search\nAction Input: {'query': 'x', 'safe': True, 'page': None}",
    { call: 'web_search', input: { query: 'x', safe: true, page: null }, repaired: true },
  ],
  [
    'react prose after the JSON',
    'Action: calculator\nAction Input: {"expression": "1+2"} (this will add the numbers)',
    { call: 'calculator', input: { expression: '1+2' }, repaired: true },
  ],
  [
    'react plain string input',
    'Action: search_knowledge_base\nAction Input: 휴가 정책',
    { call: 'search_knowledge_base', input: { input: '휴가 정책' }, repaired: true },
  ],
  [
    'react quoted string input',
    'Action: search_knowledge_base\nAction Input: "휴가 정책"',
    { call: 'search_knowledge_base', input: { input: '휴가 정책' }, repaired: true },
  ],
  ['react empty input', 'Action: get_current_datetime\nAction Input: ', { call: 'get_current_datetime', input: {} }],
  [
    'react with hallucinated observation after',
    'Action: calculator\nAction Input: {"expression": "2*8"}\nObservation: 16\nFinal Answer: 16',
    { call: 'calculator', input: { expression: '2*8' } },
  ],
  [
    'react Korean prose around',
    '질문을 확인했습니다. 검색이 필요합니다.\n\nThought: 문서를 찾아야 한다\nAction: search_knowledge_base\nAction Input: {"query": "출장비"}\n\n잠시만 기다려 주세요.',
    { call: 'search_knowledge_base', input: { query: '출장비' } },
  ],
  [
    'react mixed Korean/English thought',
    'Thought: The user asks 날씨 in 서울, so I should call the weather tool.\nAction: get_weather\nAction Input: {"city": "서울"}',
    { call: 'get_weather', input: { city: '서울' }, thought: /날씨 in 서울/ },
  ],
  ['react unknown tool', 'Action: delete_database\nAction Input: {}', { unknown: 'delete_database' }],
  ['react broken JSON', 'Action: calculator\nAction Input: {"expression": "1+1"', { formatError: true }],
  ['react array input', 'Action: calculator\nAction Input: ["1+1"]', { formatError: true }],
  // ── format 2: XML tags ──
  [
    'xml tags',
    '<tool_call>calculator</tool_call>\n<tool_input>{"expression": "6*7"}</tool_input>',
    { call: 'calculator', input: { expression: '6*7' } },
  ],
  [
    'xml tags with thought',
    'Thought: 계산이 필요합니다\n<tool_call>calculator</tool_call><tool_input>{"expression": "10/4"}</tool_input>',
    { call: 'calculator', input: { expression: '10/4' }, thought: /계산이 필요/ },
  ],
  [
    'xml tags sloppy JSON',
    "<tool_call>get_weather</tool_call>\n<tool_input>{'city': 'Jeju',}</tool_input>",
    { call: 'get_weather', input: { city: 'Jeju' }, repaired: true },
  ],
  [
    'xml json body (qwen style)',
    '<tool_call>\n{"name": "web_search", "arguments": {"query": "vLLM"}}\n</tool_call>',
    { call: 'web_search', input: { query: 'vLLM' } },
  ],
  ['xml unknown tool', '<tool_call>rm_rf</tool_call><tool_input>{}</tool_input>', { unknown: 'rm_rf' }],
  ['xml broken input', '<tool_call>calculator</tool_call><tool_input>{expression: </tool_input>', { formatError: true }],
  // ── format 3: fenced JSON ──
  [
    'fenced json block',
    '```json\n{"action": "calculator", "action_input": {"expression": "2^5"}}\n```',
    { call: 'calculator', input: { expression: '2^5' } },
  ],
  [
    'fenced block without language',
    '```\n{"action": "get_current_datetime", "action_input": {"timezone": "Asia/Seoul"}}\n```',
    { call: 'get_current_datetime', input: { timezone: 'Asia/Seoul' } },
  ],
  [
    'fenced block with prose around',
    '검색해 보겠습니다.\n```json\n{"action": "search_knowledge_base", "action_input": {"query": "보안 규정"}}\n```\n결과를 기다립니다.',
    { call: 'search_knowledge_base', input: { query: '보안 규정' } },
  ],
  ['fenced block with final answer action', '```json\n{"action": "Final Answer", "action_input": "42입니다"}\n```', { final: /42입니다/ }],
  [
    'fenced block sloppy',
    "```json\n{'action': 'calculator', 'action_input': {'expression': '8+8'},}\n```",
    { call: 'calculator', input: { expression: '8+8' }, repaired: true },
  ],
  ['fenced block unknown tool', '```json\n{"action": "send_email", "action_input": {"to": "x"}}\n```', { unknown: 'send_email' }],
  [
    'fenced string action_input',
    '```json\n{"action": "search_knowledge_base", "action_input": "휴가"}\n```',
    { call: 'search_knowledge_base', input: { input: '휴가' }, repaired: true },
  ],
  // ── python_tag / bare JSON calls ──
  [
    'python_tag call',
    '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Daegu"}}<|eom_id|>',
    { call: 'get_weather', input: { city: 'Daegu' } },
  ],
  [
    'bare name/arguments JSON',
    '{"name": "calculator", "arguments": {"expression": "12*12"}}',
    { call: 'calculator', input: { expression: '12*12' } },
  ],
  ['bare data JSON is an answer', '{"name": "철수", "age": 30}', { final: '{"name": "철수", "age": 30}' }],
  // ── final answers ──
  ['final answer', 'Thought: 이제 답할 수 있다\nFinal Answer: 연차는 15일입니다.', { final: '연차는 15일입니다.' }],
  [
    'final answer multi-line',
    'Final Answer: 정책은 다음과 같습니다:\n1. 연차 15일\n2. 병가 10일',
    { final: /1\. 연차 15일\n2\. 병가 10일/ },
  ],
  ['최종 답변', 'Thought: 정리\n최종 답변: 서울은 맑습니다.', { final: '서울은 맑습니다.' }],
  ['최종답변 without space', '최종답변: 완료했습니다.', { final: '완료했습니다.' }],
  ['Answer:', 'Answer: 56088', { final: '56088' }],
  ['결론:', '여러 자료를 검토했습니다.\n결론: 계약 해지는 30일 전 통보가 필요합니다.', { final: '계약 해지는 30일 전 통보가 필요합니다.' }],
  ['final answer lower-case', 'final answer: done', { final: 'done' }],
  [
    'final answer before a stray action',
    'Final Answer: 이미 답했습니다.\nAction: calculator\nAction Input: {"expression": "1"}',
    { final: /이미 답했습니다/ },
  ],
  ['plain prose is an answer', '안녕하세요! 무엇을 도와드릴까요?', { final: '안녕하세요! 무엇을 도와드릴까요?' }],
  ['plain English prose', 'The capital of France is Paris.', { final: 'The capital of France is Paris.' }],
  ['special tokens stripped', '<|im_start|>Final Answer: 끝<|im_end|>', { final: '끝' }],
  // ── unusable ──
  ['empty reply', '   ', { formatError: true }],
  ['only Action without input', 'Thought: hmm\nAction: calculator', { formatError: true }],
  ['dangling Action Input', 'Action Input: {"q": 1}', { formatError: true }],
  ['tool_input without tool_call', '<tool_input>{"x": 1}</tool_input>', { formatError: true }],
];

describe('parseToolCallReply', () => {
  it('has at least 45 cases', () => expect(cases.length).toBeGreaterThanOrEqual(45));

  it.each(cases.map(([name, reply, want]) => ({ name, reply, want })))('$name', ({ reply, want }) => {
    const got: ParsedReply = parseToolCallReply(reply, TOOLS);
    if ('call' in want) {
      expect(got).toMatchObject({ kind: 'tool_call', tool: want.call, input: want.input });
      if (want.repaired !== undefined) expect((got as { repaired: boolean }).repaired).toBe(want.repaired);
      if (want.thought) expect((got as { thought?: string }).thought).toMatch(want.thought);
    } else if ('final' in want) {
      expect(got.kind).toBe('final');
      const answer = (got as { answer: string }).answer;
      if (typeof want.final === 'string') expect(answer).toBe(want.final);
      else expect(answer).toMatch(want.final);
    } else if ('unknown' in want) {
      expect(got).toMatchObject({ kind: 'unknown_tool', tool: want.unknown });
      expect((got as { observation: string }).observation).toContain('calculator');
    } else {
      expect(got.kind).toBe('format_error');
      expect((got as { observation: string }).observation).toMatch(/Action Input|Final Answer/);
    }
  });

  it('never names a tool outside the catalogue as a call', () => {
    for (const [, reply] of cases) {
      const got = parseToolCallReply(reply, TOOLS);
      if (got.kind === 'tool_call') expect(TOOLS).toContain(got.tool);
    }
  });

  it('handles a 200 KB reply quickly', () => {
    const huge = `Thought: ${'생각 '.repeat(40_000)}\nAction: calculator\nAction Input: {"expression": "1+1"}`;
    const t0 = performance.now();
    expect(parseToolCallReply(huge, TOOLS)).toMatchObject({ kind: 'tool_call', tool: 'calculator' });
    expect(parseToolCallReply('{'.repeat(100_000), TOOLS).kind).toBe('format_error');
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});
