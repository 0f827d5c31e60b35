import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { useService } from '../support/service-fixture';

const HANGUL = /[가-힣]/;
const contract = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'contracts', name), 'utf8');

/**
 * Every answer in the language of the user's message, over the API and without a model: the no-model texts,
 * scope refusals, contract-qa over an English contract, the datetime tool's zone (a city in the question,
 * else DEFAULT_TIMEZONE) and DEFAULT_LANGUAGE for a message whose script tells none.
 */
describe('languages, no model configured', () => {
  const svc = useService('languages', { env: { DEFAULT_TIMEZONE: 'America/New_York', DEFAULT_LANGUAGE: 'ko' } });
  const chat = (body: Record<string, unknown>) => svc.http('POST', '/v1/chat', body);
  let englishContract: string;

  beforeAll(async () => {
    const up = await svc.http('POST', '/v1/contracts', { title: 'Services Agreement', content: contract('service-agreement-en.md') });
    expect(up.status).toBe(201);
    englishContract = up.body.contract_id;
  });

  it('tells the time of the city or zone the question names, else of DEFAULT_TIMEZONE', async () => {
    await expect(chat({ agent: 'react', message: 'What time is it in Berlin?' })).resolves.toMatchObject({
      body: {
        response: expect.stringMatching(/^In Europe\/Berlin it is \d{2}:\d{2} on \w+day, \d{4}-\d{2}-\d{2} \(UTC\+0[12]:00\)\.$/),
        tools_used: ['get_current_datetime'],
      },
    });
    await expect(chat({ agent: 'react', message: '도쿄는 지금 몇 시야?' })).resolves.toMatchObject({
      body: { response: expect.stringMatching(/^Asia\/Tokyo 기준 지금은 .*\(UTC\+09:00\)입니다\.$/) },
    });
    await expect(chat({ agent: 'react', message: 'What time is it?' })).resolves.toMatchObject({
      body: { response: expect.stringMatching(/^In America\/New_York it is /) },
    });
  });

  it('answers without a model in the language of the message; DEFAULT_LANGUAGE when the script tells none', async () => {
    const english = await chat({ agent: 'react', message: 'Tell me a story' });
    expect(english.body.response).toBe(
      'No language model is configured: I can only evaluate arithmetic (e.g. "(12+3)*4") and tell the current date and time.',
    );
    const korean = await chat({ agent: 'react', message: '이야기 하나 해줘' });
    expect(korean.body.response).toMatch(/^언어 모델이 설정되어 있지 않아/);
    expect(korean.body.response).not.toMatch(/[A-Za-z]{4,}/);
    const noLetters = await chat({ agent: 'react', message: '???' });
    expect(noLetters.body.response).toBe(korean.body.response); // DEFAULT_LANGUAGE=ko
    const plan = await chat({ agent: 'plan-execute', message: 'Please write me a poem' });
    expect(plan.body.response).toMatch(/^No language model is configured/);
  });

  it('parses an English contract and answers from it in English, citing its articles', async () => {
    const view = await svc.http('GET', `/v1/contracts/${englishContract}`);
    expect(view.body.articles.map((a: { number: string }) => a.number)).toHaveLength(15);
    expect(view.body.articles[9]).toMatchObject({ number: 'Article 10', title: 'Termination' });
    const res = await chat({ agent: 'contract-qa', contract_id: englishContract, message: 'What does Article 5 say?' });
    expect(res.body.response).toMatch(/^The relevant articles:\n\n\[Article 5 Fees and Payment\][\s\S]*KRW 120,000,000/);
    expect(res.body.sources.map((s: { ref: string }) => s.ref)).toEqual(['Article 5']);
    const schedule = await chat({ agent: 'contract-qa', contract_id: englishContract, message: 'What is in Schedule 2?' });
    expect(schedule.body.sources).toEqual([expect.objectContaining({ kind: 'contract_exhibit', ref: 'Schedule 2' })]);
  });

  it("refuses an out-of-scope question in the user's language", async () => {
    const english = await chat({ agent: 'contract-qa', contract_id: englishContract, message: "What's the weather today?" });
    expect(english.body).toMatchObject({ metadata: { out_of_scope: true } });
    expect(english.body.response).toBe(
      'Sorry, this agent only answers questions about the contract. Please ask about its articles or terms.',
    );
    const korean = await chat({ agent: 'contract-qa', contract_id: englishContract, message: '오늘 날씨 어때?' });
    expect(korean.body.response).toMatch(HANGUL);
    expect(korean.body.response).toMatch(/^죄송합니다\. 이 에이전트는 계약서에 관한 질문에만/);
  });
});

describe('languages, a call waiting for approval', () => {
  const svc = useService('languages_approval', { env: { TOOL_APPROVAL: 'calculator' } });

  it("tells the user in the language of the message that an operator's approval is needed", async () => {
    const english = await svc.http('POST', '/v1/chat', { agent: 'react', message: 'Please calculate 12 * 7' });
    expect(english.body.metadata).toMatchObject({ approval_pending: true });
    expect(english.body.response).toMatch(/^The calculator call needs an operator's approval/);
    expect(english.body.response).not.toMatch(HANGUL);
    const korean = await svc.http('POST', '/v1/chat', { agent: 'react', message: '12 * 7 계산해줘' });
    expect(korean.body.response).toMatch(/^도구 실행\(calculator\)에 운영자 승인이 필요합니다/);
  });
});
