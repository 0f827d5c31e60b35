import { answerLanguageInstruction, detectLanguage, localize, turnLanguage } from './language';
import { withRunContext } from './run-context';

describe('detectLanguage', () => {
  it.each([
    ['해지 조건이 뭐야?', 'ko'],
    ['What are the termination conditions?', 'en'],
    ['Summarise 제5조 please', 'en'],
    ['제5조 termination 조항 요약해줘', 'ko'],
    ['契約の解除条件は何ですか', 'ja'],
    ['合同的终止条件是什么', 'zh'],
    ['Каковы условия расторжения?', 'ru'],
    ['ما هي شروط الإنهاء؟', 'ar'],
    ['Πού είναι η σύμβαση;', 'el'],
    ['Wie spät ist es in Berlin?', 'en'], // Latin script: English (the tables' language for Latin text)
  ])('%s → %s', (text, language) => {
    expect(detectLanguage(text)).toBe(language);
  });

  it('falls back to the given default when the message has no letters', () => {
    expect(detectLanguage('12 * 7 = ?', 'ko')).toBe('ko');
    expect(detectLanguage('', 'en')).toBe('en');
    expect(detectLanguage('12 * 7')).toBe('en');
  });
});

describe('localize and turnLanguage', () => {
  const table = { en: 'Sorry', ko: '죄송합니다' };

  it('picks the language, English when the table has none in it', () => {
    expect(localize(table, 'ko')).toBe('죄송합니다');
    expect(localize(table, 'ja')).toBe('Sorry');
    expect(answerLanguageInstruction('ko')).toBe("Answer in Korean, the language of the user's message.");
  });

  it("prefers the run's language, else the text's", () => {
    const configurable = withRunContext({ tenantId: 't', runId: 'r', language: 'ko' });
    expect(turnLanguage({ configurable }, 'hello')).toBe('ko');
    expect(turnLanguage({}, 'hello')).toBe('en');
    expect(turnLanguage(undefined, '안녕')).toBe('ko');
  });
});
