import { delegateByRules } from './rules';
import { parseSupervisorReply } from './supervisor-reply';

describe('supervisor reply parsing', () => {
  it.each([
    [
      'Thought: 문서 검색 필요\nDelegate: rag_agent\nTask: 휴가 정책을 찾아라',
      { kind: 'delegate', agent: 'rag_agent', task: '휴가 정책을 찾아라' },
    ],
    ['Delegate: external_agent', { kind: 'delegate', agent: 'external_agent', task: 'fallback' }],
    ['delegate: `internal_agent`\ntask: 12*7 계산', { kind: 'delegate', agent: 'internal_agent', task: '12*7 계산' }],
    ['Thought: 충분하다\nFinal Answer: 연차는 15일입니다.', { kind: 'final', answer: '연차는 15일입니다.' }],
    ['최종 답변: 끝', { kind: 'final', answer: '끝' }],
    ['Final Answer: 이미 답함\nDelegate: rag_agent', { kind: 'final', answer: '이미 답함\nDelegate: rag_agent' }],
    ['그냥 평범한 답변입니다.', { kind: 'final', answer: '그냥 평범한 답변입니다.' }],
  ])('%p', (text, want) => {
    expect(parseSupervisorReply(text, 'fallback')).toEqual(want);
  });
});

describe('supervisor routing rules', () => {
  const all = ['rag_agent', 'external_agent', 'internal_agent'];
  it('delegates only when exactly one agent fits', () => {
    expect(delegateByRules('회사 휴가 정책 알려줘', all)).toBe('rag_agent');
    expect(delegateByRules('서울 날씨 어때?', all)).toBe('external_agent');
    expect(delegateByRules('123 * 456 계산해줘', all)).toBe('internal_agent');
    expect(delegateByRules('회사 정책 문서랑 오늘 날씨', all)).toBeNull();
    expect(delegateByRules('프로젝트 일정 어떻게 돼?', all)).toBeNull();
    expect(delegateByRules('서울 날씨 어때?', ['rag_agent'])).toBeNull();
  });

  it('leaves a message naming another agent to the model; a name alone never delegates', () => {
    const withPeer = [...all, 'peer', 'travel_desk'];
    expect(delegateByRules('When does contract C-19 renew? Ask the peer service.', withPeer)).toBeNull();
    expect(delegateByRules('travel desk에게 서울 날씨 물어봐', withPeer)).toBeNull();
    expect(delegateByRules('계약서 갱신일은? peer에게 물어봐', withPeer)).toBeNull();
    expect(delegateByRules('When does contract C-19 renew?', withPeer)).toBe('internal_agent');
    expect(delegateByRules('peer review of 123 * 456', withPeer)).toBeNull();
    expect(delegateByRules('peerless 123 * 456', withPeer)).toBe('internal_agent'); // a word, not a prefix
    expect(delegateByRules('Ask the peer.', withPeer)).toBeNull();
    expect(delegateByRules('compute 2 * 3 with internal_agent', withPeer)).toBe('internal_agent'); // names its own pick
  });
});
