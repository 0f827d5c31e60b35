import { untrustedBodies } from '../../src/tools/untrusted';
import type { ChatRequest, ScriptedReply } from './model-server';

/**
 * A responder for ScriptedModelServer that answers every seed scenario the way a plausible real model would,
 * reading only what the request carries (so a wrong or missing context gives a wrong answer):
 * - native tool calling (`tools` in the request) → `tool_calls`; prompt-based (the ReAct catalogue in the system
 *   prompt, no `tools`) → `Thought / Action / Action Input` and `Final Answer` text;
 * - JSON decisions → `{ json, wrap }`: bare JSON when the request carries `response_format` (the server drops the
 *   wrap), otherwise wrapped in prose or a ```json fence; a plan is `{"steps": [...]}` in JSON mode (no top-level
 *   arrays there) and a bare array otherwise;
 * - evaluators are satisfied after the first round; answers quote the facts found in the request's context;
 * - answers are in English when the service asks for it ("Answer in English" in a system prompt), else Korean.
 * `ignoreResponseFormat`: a server that accepts `response_format` but does not enforce it (the reply is what the
 * model writes without JSON mode: prose or a fence around the JSON, a bare array for a plan).
 */
export function plausibleModel(opts: { ignoreResponseFormat?: boolean } = {}): (req: ChatRequest) => ScriptedReply {
  let wraps = 0;
  const decide = (value: unknown): ScriptedReply => {
    const wrap = wraps++ % 2 ? 'fence' : 'prose';
    return opts.ignoreResponseFormat ? { content: wrapped(JSON.stringify(value), wrap) } : { json: value, wrap };
  };
  return (raw) => {
    // a real model reads the data inside the service's untrusted-data markers (and is not told what to do by it)
    const req: ChatRequest = {
      ...raw,
      messages: raw.messages.map((m) => (typeof m.content === 'string' ? { ...m, content: untrustedBodies(m.content) } : m)),
    };
    const sys = systemText(req);
    const user = lastUserText(req);
    const jsonMode = Boolean(req.response_format) && !opts.ignoreResponseFormat;
    const en = sys.includes('Answer in English');
    if (sys.includes('질문 분류 전문가')) return decide(scopeOf(user));
    if (sys.includes('질문 분석 전문가')) return decide(checkToolNeeded(user));
    if (sys.includes('계약서 분석 전문가')) return decide(nextContractTool(user));
    if (sys.includes('충분성 평가')) return decide({ is_sufficient: true, reasoning: '검색 결과로 충분합니다', missing_info: null });
    if (sys.includes('계약서 질의응답 전문가')) return { content: contractAnswer(user, en) };
    if (sys.includes('사용자 질문을 분류하세요')) return decide(routeOf(user));
    if (sys.includes('수퍼바이저')) return { content: supervisorReply(user, en) };
    if (sys.includes('의도 분류기')) return decide(intentOf(user));
    if (sys.includes('재계획 수립기')) return decide(jsonMode ? { steps: [] } : []);
    if (sys.includes('계획 수립기')) return decide(jsonMode ? { steps: planFor(user) } : planFor(user));
    if (sys.includes('실행 결과를 정리하는')) return { content: summariseResults(sys, en) };
    if (sys.includes('핵심만')) return { content: firstSentences(user, 2) };
    if (isGreeting(user) && !sys.includes('\n[참고 문서]\n'))
      return finalReply(req, en ? 'Hello! How can I help you?' : '안녕하세요! 무엇을 도와드릴까요?');
    return toolUsingAgent(req, sys, en);
  };
}

// ── tool-using agents (react, assistant, supervisor sub-agents) ───────────────────────────────────────────

function toolUsingAgent(req: ChatRequest, sys: string, en: boolean): ScriptedReply {
  const question = questionOf(req);
  const observation = lastObservation(req);
  if (observation !== null) return finalReply(req, answerFromObservation(question, observation, en));
  const docs = sys.split('\n[참고 문서]\n')[1];
  if (docs) return finalReply(req, `${bestSentence(docs, question)} (${en ? 'from the documents' : '참고 문서'})`);
  const tools = toolsOf(req, sys);
  const expression = arithmeticIn(question);
  if (expression && tools.includes('calculator')) return toolCallReply(req, 'calculator', { expression });
  if (/what time|몇 시|시각/i.test(question) && tools.includes('get_current_datetime'))
    return toolCallReply(req, 'get_current_datetime', { timezone: question.match(/\b[A-Z][a-z]+\/[A-Za-z_]+\b/)?.[0] ?? 'Asia/Seoul' });
  if (tools.includes('search_knowledge_base')) {
    // the supervisor's task (after "[작업]") names the topic in the documents' words
    const topic = question.split('[작업]').at(-1) ?? question;
    return toolCallReply(req, 'search_knowledge_base', { query: keywords(topic).slice(0, 2).join(' ') });
  }
  return finalReply(
    req,
    en ? 'I understood the question but cannot answer it without a tool.' : '질문을 이해했지만 도구 없이 답하기 어렵습니다.',
  );
}

function answerFromObservation(question: string, observation: string, en: boolean): string {
  if (/^-?[\d.,e+]+$/i.test(observation.trim()))
    return en ? `The result is ${observation.trim()}.` : `계산 결과는 ${observation.trim()}입니다.`;
  if (/^Error\b|error:/i.test(observation)) return `The tool could not answer that: ${observation.replace(/^Error:?\s*/i, '')}`;
  return bestSentence(observation, question);
}

function toolCallReply(req: ChatRequest, name: string, args: Record<string, unknown>): ScriptedReply {
  if (req.tools?.length) return { toolCalls: [{ name, args }] };
  return { content: `Thought: ${name} 도구가 필요합니다.\nAction: ${name}\nAction Input: ${JSON.stringify(args)}` };
}

/** Native mode answers plainly; a prompt-mode agent (catalogue in its system prompt) writes `Final Answer:`. */
function finalReply(req: ChatRequest, text: string): ScriptedReply {
  const promptMode = !req.tools?.length && systemText(req).includes('Action Input');
  return { content: promptMode ? `Thought: 답할 수 있습니다.\nFinal Answer: ${text}` : text };
}

function toolsOf(req: ChatRequest, sys: string): string[] {
  if (req.tools?.length) return req.tools.map((t: { function: { name: string } }) => t.function.name);
  return [...sys.matchAll(/^- ([a-z_]+): /gm)].map((m) => m[1]);
}

/** The tool result the agent last received: a `tool` message (native) or an `Observation:` turn (prompt mode). */
function lastObservation(req: ChatRequest): string | null {
  const last = req.messages.at(-1);
  if (last?.role === 'tool') return String(last.content);
  const text = last?.role === 'user' ? String(last.content) : '';
  return text.startsWith('Observation:') ? text.replace(/^Observation:\s*/, '') : null;
}

/** The user's question: the last user turn that is not an observation. */
function questionOf(req: ChatRequest): string {
  const turns = req.messages.filter((m) => m.role === 'user' && !String(m.content).startsWith('Observation:'));
  return String(turns.at(-1)?.content ?? '');
}

// ── contract-qa ───────────────────────────────────────────────────────────────────────────────────────────

/** The ScopeValidator's `{is_valid, reason}`: questions about the service's domain are in scope. */
function scopeOf(prompt: string) {
  const question = prompt.match(/질문: (.*)/)?.[1] ?? prompt;
  const off = /날씨|주식|맛집|축구|영화/.test(question);
  return { is_valid: !off, reason: off ? '서비스 범위 밖의 질문' : '서비스 범위의 질문' };
}

function checkToolNeeded(prompt: string) {
  const question = prompt.match(/질문: (.*)/)?.[1] ?? prompt;
  const greeting = isGreeting(question);
  return { needs_tools: !greeting, reasoning: greeting ? '인사' : '계약서 내용 질문' };
}

function nextContractTool(prompt: string) {
  const question = prompt.match(/질문: (.*)/)?.[1] ?? '';
  return { tool: 'get_article_by_title', args: { titles: keywords(question).slice(0, 2) }, reasoning: '제목으로 조항 찾기' };
}

/** The article block of the context that matches the question best, quoted with its reference. */
function contractAnswer(prompt: string, en: boolean): string {
  const [context, rest] = prompt.split(/\n\n질문: /);
  const question = (rest ?? prompt).split('\n')[0];
  if (!rest) return en ? 'Hello! Ask me anything about the contract.' : '안녕하세요! 계약서에 관해 궁금한 점을 물어보세요.';
  const blocks = context
    .replace(/^계약서 내용:\n/, '')
    .split(/\n\n(?=\[)/)
    .map((b) => {
      const head = b.match(/^\[((?:Article|Section|Clause|Schedule|Exhibit|Annex|Appendix) [\w.]+|[^\]\s]+) ([^\]]*)\]/);
      return { ref: head?.[1] ?? '', title: head?.[2] ?? '', body: b.replace(/^\[[^\]]*\][^\n]*\n/, '') };
    });
  const named = question.match(/제\s*(\d+)\s*조|Article\s+(\d+)/);
  const namedRef = named ? (named[1] ? `제${named[1]}조` : `Article ${named[2]}`) : null;
  const score = (b: { ref: string; title: string; body: string }) =>
    (namedRef && b.ref === namedRef ? 100 : 0) + 3 * overlap(b.title, question) + overlap(b.body, question) / 10;
  const best = [...blocks].sort((a, b) => score(b) - score(a))[0];
  if (!best?.ref) return en ? 'I could not find a relevant article in the contract.' : '계약서에서 관련 조항을 찾지 못했습니다.';
  const clauses = best.body
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^제\s*\d+\s*조(의\d+)?\s*\(|^(Article|Section|Clause) \d+\b/.test(l));
  const quoted = `${clauses.slice(0, 2).join(' ')} [${best.ref} ${best.title}]`;
  return en ? `According to ${best.ref} (${best.title}), ${quoted}` : `${best.ref}(${best.title})에 따르면 ${quoted}`;
}

// ── assistant router, supervisor, plan-execute ────────────────────────────────────────────────────────────

function routeOf(question: string) {
  const rag = /출장|휴가|연차|규정|정책|수당|복지|travel|trip|vacation|leave|policy|allowance/i.test(question);
  return { route: rag ? 'rag' : 'agent', reason: rag ? '사내 규정 질문' : '일반 질문' };
}

function supervisorReply(last: string, en: boolean): string {
  const results = last.split('[에이전트 결과]')[1];
  if (results) {
    const output = results.split('\n').slice(2).join(' ').trim();
    return `Thought: 에이전트 결과로 답할 수 있습니다.\nFinal Answer: ${output}`;
  }
  if (/휴가|연차|쉬는 날|규정|days off|leave|vacation|policy/i.test(last)) {
    const task = en ? 'Find the annual leave days in the vacation policy' : '연차 휴가 규정에서 휴가 일수를 찾아 요약하라';
    return `Thought: 사내 휴가 규정에 관한 질문입니다.\nDelegate: rag_agent\nTask: ${task}`;
  }
  const agent = /날씨|뉴스|weather|news/i.test(last) ? 'external_agent' : 'internal_agent';
  return `Thought: ${agent}에게 맡길 질문입니다.\nDelegate: ${agent}\nTask: ${last.trim()}`;
}

function intentOf(prompt: string) {
  const input = prompt.match(/새 입력: ([\s\S]*)$/)?.[1]?.trim() ?? prompt;
  return { intent: 'new_question', rewritten_query: input, needs_tool: true, constraints: '' };
}

/** One step per request in the query: "A 곱하기 B", "A의 B제곱", "지금 (UTC) 시각"; "X 검색하고 요약" chains two. */
function planFor(query: string): Array<Record<string, unknown>> {
  if (/검색|search/i.test(query) && /요약|summar/i.test(query)) {
    return [
      { step_id: 1, tool: 'search_knowledge_base', input: keywords(query)[0] ?? query },
      { step_id: 2, tool: 'summarize', input_from: 'step_1' },
    ];
  }
  const steps: Array<Record<string, unknown>> = [];
  for (const part of query.split(/,|그리고|\band\b/)) {
    const expression = arithmeticIn(part);
    if (expression) steps.push({ step_id: steps.length + 1, tool: 'calculator', input: expression });
    else if (/시각|시간|time/i.test(part))
      steps.push({ step_id: steps.length + 1, tool: 'get_current_datetime', input: { timezone: /UTC/.test(part) ? 'UTC' : 'Asia/Seoul' } });
  }
  return steps;
}

/** The steps' outputs (each block after "[step N: tool]"), in order. */
function summariseResults(sys: string, en: boolean): string {
  const results = sys.split(/\n실행 결과:\n/)[1] ?? '';
  const outputs = results
    .split(/\[step \d+: [\w-]+\]\n/)
    .slice(1)
    .map((o) => o.replace(/\s+/g, ' ').trim().slice(0, 160));
  return en ? `Here are the results: ${outputs.join(', ')}.` : `요청하신 결과입니다: ${outputs.join(', ')}.`;
}

// ── text helpers ──────────────────────────────────────────────────────────────────────────────────────────

const GREETING = /^\s*(안녕|반가|고마|감사|hi\b|hello\b)/i;
const isGreeting = (text: string) => GREETING.test(text) && text.length < 30;

function arithmeticIn(text: string): string | null {
  const power = text.match(/(\d+)\s*의\s*(\d+)\s*제곱/) ?? text.match(/(\d+)\s*to the power of\s*(\d+)/i);
  if (power) return `${power[1]}^${power[2]}`;
  const product = text.match(/(\d+)\s*(?:\*|×|times|곱하기)\s*(\d+)/i);
  return product ? `${product[1]} * ${product[2]}` : null;
}

const PARTICLES = /(은|는|이|가|을|를|의|에|에서|으로|로|이야|야|돼|나|요)$/;
const ENGLISH_STOPWORDS = new Set(
  'what are is the a an of how long does do say says can i me my to in on for it this that and or with tell about please find search summarize summarise get when much per'.split(
    ' ',
  ),
);
function keywords(text: string): string[] {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? [])
    .map((w) => (/^[A-Za-z]+$/.test(w) ? w.toLowerCase() : w))
    .map((w) => (w.replace(PARTICLES, '').length >= 2 ? w.replace(PARTICLES, '') : w))
    .filter((w) => w.length >= 2 && !ENGLISH_STOPWORDS.has(w) && !/^(뭐|얼마|어떻게|알려|내용|무엇)/.test(w));
}

/**
 * How much of the question the text covers: per keyword 2 when the text has it (an English keyword as a whole
 * word), else 1 for a stem (two characters; five letters in English: 'terminat…').
 */
function overlap(text: string, question: string): number {
  const lower = text.toLowerCase();
  return keywords(question).reduce((n, w) => {
    const latin = /^[a-z]+$/.test(w);
    const whole = latin ? new RegExp(`\\b${w}\\b`).test(lower) : text.includes(w);
    const stem = latin ? w.length > 5 && lower.includes(w.slice(0, 5)) : text.includes(w.slice(0, 2));
    return n + (whole ? 2 : stem ? 1 : 0);
  }, 0);
}

function bestSentence(text: string, question: string): string {
  const sentences = text
    .split(/(?<=[.다])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 4 && !/^\[[^\]]*\]/.test(s)); // not the passages' headers
  return [...sentences].sort((a, b) => overlap(b, question) - overlap(a, question))[0] ?? text.slice(0, 200);
}

function firstSentences(text: string, n: number): string {
  return text
    .split(/(?<=다\.|[a-z]\.)\s+/)
    .slice(0, n)
    .join(' ');
}

/** JSON as a model writes it without JSON mode (what the server's `wrap` does for `{ json }` replies). */
function wrapped(text: string, wrap: 'prose' | 'fence'): string {
  return wrap === 'prose' ? `Sure! Here is my decision: ${text} Let me know if you need anything else.` : `\`\`\`json\n${text}\n\`\`\``;
}

function systemText(req: ChatRequest): string {
  return req.messages
    .filter((m) => m.role === 'system')
    .map((m) => String(m.content))
    .join('\n');
}

function lastUserText(req: ChatRequest): string {
  return String(req.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');
}
