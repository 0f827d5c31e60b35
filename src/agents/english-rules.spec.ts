import { scopeByRules } from '../scope/scope-rules';
import { routeByRules } from './assistant/rules';
import { ENGLISH_REFERENCE, ENGLISH_TOPIC_WORDS, needsToolsByRules, topicsOf } from './contract-qa/classifier';
import { isChitchat, isContentOnly } from './plan-execute/rules';
import { delegateByRules } from './supervisor/rules';

/** The rule fast paths of the built-in agents decide English questions as they decide Korean ones. */
describe('rule paths in English', () => {
  it("contract-qa's classifier: article and exhibit references, topic words, greetings", () => {
    expect(needsToolsByRules('What does Article 5 say?')).toEqual({ needs_tools: true, reasoning: 'names an article or exhibit' });
    expect(needsToolsByRules('Summarise Section 3.2')).toMatchObject({ needs_tools: true, reasoning: 'names an article or exhibit' });
    expect(needsToolsByRules('What is in Schedule 2?')).toMatchObject({ reasoning: 'names an article or exhibit' });
    expect(needsToolsByRules('How can the agreement be terminated?')).toMatchObject({ reasoning: 'asks about a contract topic' });
    expect(needsToolsByRules('Hello there!')).toEqual({ needs_tools: false, reasoning: 'greeting or thanks' });
    expect(needsToolsByRules('Tell me a joke')).toBeNull();
    expect(topicsOf('What are the termination conditions?')[0].topic_name).toBe('termination');
  });

  it("contract-qa's scope: English references and topics are in scope, the weather is not", () => {
    const spec = {
      domain: 'contracts',
      inScope: [ENGLISH_REFERENCE, ENGLISH_TOPIC_WORDS],
      outOfScope: [/weather/i],
      refusal: { en: '', ko: '' },
    };
    expect(scopeByRules('Explain Exhibit A', spec)).toMatchObject({ is_valid: true, decided_by: 'rules' });
    expect(scopeByRules('Who pays the fees?', spec)).toMatchObject({ is_valid: true });
    expect(scopeByRules("What's the weather in Seoul today?", spec)).toMatchObject({ is_valid: false });
    expect(scopeByRules('Good afternoon', spec)).toMatchObject({ is_valid: true, reason: 'greeting or thanks' });
  });

  it("the assistant's router: policy questions to rag, small talk and tools to the agent", () => {
    expect(routeByRules("What's the company vacation policy?", true)).toMatchObject({ route: 'rag' });
    expect(routeByRules('How much is the per diem on a business trip?', true)).toMatchObject({ route: 'rag' });
    expect(routeByRules('Hello!', true)).toMatchObject({ route: 'agent' });
    expect(routeByRules('What is 12 times 7?', true)).toMatchObject({ route: 'agent' });
    expect(routeByRules('What did I tell you my name was?', true)).toMatchObject({ route: 'agent' });
    expect(routeByRules("I'm allergic to peanuts", true)).toEqual({ route: 'agent', reason: 'states a fact about the user' });
    expect(routeByRules('내 생일은 3월 15일이야', true)).toEqual({ route: 'agent', reason: 'states a fact about the user' });
  });

  it("the supervisor's first delegation", () => {
    const all = ['rag_agent', 'external_agent', 'internal_agent'];
    expect(delegateByRules('What does the company policy say about leave?', all)).toBe('rag_agent');
    expect(delegateByRules("What's the weather in Berlin?", all)).toBe('external_agent');
    expect(delegateByRules('Calculate 123 * 456', all)).toBe('internal_agent');
    expect(delegateByRules('What does Article 5 of the contract say?', all)).toBe('internal_agent');
  });

  it("plan-execute's intent rules: chitchat and pasted content", () => {
    expect(isChitchat('Hello there!')).toBe(true);
    expect(isChitchat('Thank you so much!')).toBe(true);
    expect(isChitchat('Hi, what is the weather in Seoul?')).toBe(false);
    expect(isContentOnly('Revenue grew this quarter. '.repeat(20))).toBe(true);
    expect(isContentOnly(`${'Revenue grew this quarter. '.repeat(20)} Summarize this.`)).toBe(false);
  });
});
