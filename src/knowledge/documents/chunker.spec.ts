import { chunkText } from './chunker';
import { prefixTsQuery, searchTerms } from './search-query';

describe('chunkText', () => {
  it('keeps short documents whole and headings as chunk headings', () => {
    const chunks = chunkText('# 휴가 정책\n\n연차는 15일이다.\n\n## 병가\n\n병가는 10일이다.');
    expect(chunks).toEqual([
      { index: 0, heading: '휴가 정책', content: '연차는 15일이다.' },
      { index: 1, heading: '병가', content: '병가는 10일이다.' },
    ]);
  });

  it('splits long text into bounded, overlapping chunks without losing words', () => {
    const paragraphs = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} talks about topic ${i} in some detail here.`);
    const chunks = chunkText(paragraphs.join('\n\n'), 200, 40);
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) expect(c.content.length).toBeLessThanOrEqual(260);
    for (const p of paragraphs) expect(chunks.some((c) => c.content.includes(p))).toBe(true);
    expect(chunks[1].content.startsWith(chunks[0].content.slice(-40).split(' ').slice(1).join(' ').slice(0, 10))).toBe(true);
  });

  it('hard-splits a single huge sentence', () => {
    const chunks = chunkText('x'.repeat(2000), 500, 0);
    expect(chunks.map((c) => c.content.length)).toEqual([500, 500, 500, 500]);
  });
});

describe('search terms', () => {
  it('drops particles and stopwords', () => {
    expect(searchTerms('회사 휴가 정책이 뭐야?')).toEqual(['회사', '휴가', '정책']);
    expect(searchTerms('What is the vacation policy?')).toEqual(['vacation', 'policy']);
    // English endings go, so a prefix query finds the other forms ('termin:*' matches terminate and termination)
    expect(searchTerms('How can I end this contract? Termination fees and payments')).toEqual([
      'end',
      'contract',
      'termin',
      'fee',
      'payment',
    ]);
    expect(prefixTsQuery(['휴가', "o'neil"])).toBe('휴가:* | oneil:*');
    expect(prefixTsQuery([])).toBeNull();
  });
});
