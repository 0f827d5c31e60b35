import { scanForFacts, sentencesOf } from './fact-rules';
import { factKey } from './fact-store';

const kinds = (message: string) => scanForFacts(message).facts.map((f) => f.kind);

describe('long-term memory rules', () => {
  it.each([
    ["I'm allergic to peanuts", 'allergy'],
    ['My birthday is March 15', 'birthday'],
    ['My name is Jin Park', 'name'],
    ["I'm vegetarian", 'diet'],
    ["I don't eat pork", 'diet'],
    ['I live in Busan', 'home'],
    ['I work as a nurse at a children’s hospital', 'job'],
    ['My daughter is seven', 'family'],
    ['I prefer window seats on flights', 'preference'],
    ['Remember that my locker code is 4417', 'note'],
  ])('English: %s → %s', (message, kind) => {
    expect(kinds(message)).toEqual([kind]);
  });

  it.each([
    ['나는 땅콩 알레르기가 있어', 'allergy'],
    ['내 생일은 3월 15일이야', 'birthday'],
    ['제 이름은 김민수입니다', 'name'],
    ['저는 채식주의자예요', 'diet'],
    ['나는 부산에 살아', 'home'],
    ['저는 간호사입니다', 'job'],
    ['내 딸은 일곱 살이야', 'family'],
    ['나는 매운 음식을 좋아해', 'preference'],
    ['내 사물함 번호는 4417이라고 기억해 줘', 'note'],
  ])('Korean: %s → %s', (message, kind) => {
    expect(kinds(message)).toEqual([kind]);
  });

  it.each([
    'When is my birthday?',
    'What am I allergic to',
    'Do you remember my name?',
    "If I were allergic to peanuts, what couldn't I eat?",
    "I'm tired today",
    "I'm so hungry right now",
    'What is the capital of France?',
    'Can you help me write an email to my manager?',
    '내 생일이 언제야?',
    '내가 뭐에 알레르기가 있지?',
    '만약 내가 부산에 산다면, 어디를 가볼까?',
    '오늘 피곤해',
    '지금 배고파',
    '이메일 쓰는 것 좀 도와줘',
    '안녕하세요',
  ])('not a durable fact: %s', (message) => {
    expect(scanForFacts(message)).toEqual({ facts: [], ambiguous: [] });
  });

  it('reads each sentence: a fact beside a question is kept, the question is not', () => {
    expect(sentencesOf("I'm allergic to peanuts. What snacks should I bring?")).toHaveLength(2);
    const scan = scanForFacts("I'm allergic to peanuts. What snacks should I bring?");
    expect(scan.facts).toEqual([{ kind: 'allergy', text: "I'm allergic to peanuts.", lang: 'en' }]);
    expect(scanForFacts('내 생일은 3월 15일이야. 선물 추천해 줄래?').facts.map((f) => f.lang)).toEqual(['ko']);
  });

  it('leaves a self-description it cannot classify to the model, and nothing else', () => {
    expect(scanForFacts("I'm Jin").ambiguous).toEqual(["I'm Jin"]);
    expect(scanForFacts('저는 아침형 인간이에요').ambiguous).toEqual(['저는 아침형 인간이에요']);
    expect(scanForFacts('I need help with my code').ambiguous).toEqual([]);
    expect(scanForFacts('The weather is nice').ambiguous).toEqual([]);
  });

  it('keys a restated fact as the same item: one birthday, one name; other facts by their normalised text', () => {
    const [old] = scanForFacts('My birthday is March 15').facts;
    const [restated] = scanForFacts('My birthday is actually April 2').facts;
    expect(factKey(restated)).toBe(factKey(old));
    expect(factKey(scanForFacts('내 생일은 4월 2일이야').facts[0])).toBe(factKey(old));
    const [a] = scanForFacts("I'm allergic to peanuts").facts;
    const [again] = scanForFacts("I'm  allergic to Peanuts!").facts;
    const [other] = scanForFacts("I'm allergic to shellfish").facts;
    expect(factKey(again)).toBe(factKey(a));
    expect(factKey(other)).not.toBe(factKey(a));
  });
});
