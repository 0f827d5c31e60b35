/**
 * Time zones named in a question: an IANA name ("Europe/Berlin", "UTC") or a major city, in English or Korean
 * ("Berlin", "뉴욕"), mapped to its IANA zone. The datetime tool and the rule fast path (agents/shared/rules.ts)
 * use it, so "What time is it in Berlin?" is answered for Europe/Berlin, not the server's zone.
 */
const CITIES: Array<[string[], string]> = [
  [['seoul', '서울', 'busan', '부산', 'korea', '한국'], 'Asia/Seoul'],
  [['tokyo', '도쿄', 'osaka', '오사카', 'japan', '일본'], 'Asia/Tokyo'],
  [['beijing', '베이징', 'shanghai', '상하이', 'china', '중국'], 'Asia/Shanghai'],
  [['hong kong', '홍콩'], 'Asia/Hong_Kong'],
  [['taipei', '타이베이'], 'Asia/Taipei'],
  [['singapore', '싱가포르'], 'Asia/Singapore'],
  [['bangkok', '방콕'], 'Asia/Bangkok'],
  [['hanoi', '하노이', 'ho chi minh', '호치민'], 'Asia/Ho_Chi_Minh'],
  [['jakarta', '자카르타'], 'Asia/Jakarta'],
  [['manila', '마닐라'], 'Asia/Manila'],
  [['delhi', 'new delhi', 'mumbai', 'bangalore', '뭄바이', '델리', 'india', '인도'], 'Asia/Kolkata'],
  [['dubai', '두바이'], 'Asia/Dubai'],
  [['moscow', '모스크바'], 'Europe/Moscow'],
  [['istanbul', '이스탄불'], 'Europe/Istanbul'],
  [['berlin', '베를린', 'munich', '뮌헨', 'frankfurt', '프랑크푸르트', 'germany', '독일'], 'Europe/Berlin'],
  [['paris', '파리', 'france', '프랑스'], 'Europe/Paris'],
  [['london', '런던', 'uk', 'england', '영국'], 'Europe/London'],
  [['madrid', '마드리드', 'spain', '스페인'], 'Europe/Madrid'],
  [['rome', '로마', 'milan', '밀라노', 'italy', '이탈리아'], 'Europe/Rome'],
  [['amsterdam', '암스테르담'], 'Europe/Amsterdam'],
  [['zurich', '취리히'], 'Europe/Zurich'],
  [['stockholm', '스톡홀름'], 'Europe/Stockholm'],
  [['cairo', '카이로'], 'Africa/Cairo'],
  [['johannesburg', '요하네스버그'], 'Africa/Johannesburg'],
  [['new york', '뉴욕', 'boston', '보스턴', 'washington', '워싱턴'], 'America/New_York'],
  [['chicago', '시카고'], 'America/Chicago'],
  [['denver', '덴버'], 'America/Denver'],
  [['los angeles', '로스앤젤레스', 'la', 'san francisco', '샌프란시스코', 'seattle', '시애틀'], 'America/Los_Angeles'],
  [['toronto', '토론토'], 'America/Toronto'],
  [['vancouver', '밴쿠버'], 'America/Vancouver'],
  [['mexico city', '멕시코시티'], 'America/Mexico_City'],
  [['sao paulo', 'são paulo', '상파울루'], 'America/Sao_Paulo'],
  [['buenos aires', '부에노스아이레스'], 'America/Argentina/Buenos_Aires'],
  [['sydney', '시드니', 'melbourne', '멜버른'], 'Australia/Sydney'],
  [['auckland', '오클랜드'], 'Pacific/Auckland'],
  [['honolulu', 'hawaii', '하와이'], 'Pacific/Honolulu'],
];

const BY_NAME = new Map(CITIES.flatMap(([names, zone]) => names.map((n) => [n, zone] as const)));
const IANA = /\b(?:[A-Z][a-z]+\/[A-Za-z_]+(?:\/[A-Za-z_]+)?|UTC|GMT)\b/;
/** longest names first, so "new york" wins over "york" and "new delhi" over "delhi" */
const NAMES = [...BY_NAME.keys()].sort((a, b) => b.length - a.length);

/** The process's own time zone (the `DEFAULT_TIMEZONE` fallback). */
export function systemTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The zone a question names ("in Berlin", "Europe/Berlin", "뉴욕 시간"), or null when it names none. */
export function zoneInText(text: string): string | null {
  const iana = IANA.exec(text)?.[0];
  if (iana) return iana;
  const lower = text.toLowerCase();
  for (const name of NAMES) {
    const hangul = /[가-힣]/.test(name);
    const at = hangul ? lower.indexOf(name) : lower.search(new RegExp(`(?<![\\p{L}])${name}(?![\\p{L}])`, 'u'));
    if (at >= 0 && (hangul || name.length > 2 || text.slice(at, at + name.length) === name.toUpperCase())) return BY_NAME.get(name)!;
  }
  return null;
}

/** A tool argument as an IANA zone: a city ("Berlin") becomes its zone; anything else is kept for the tool to check. */
export function resolveZone(name: string): string {
  return BY_NAME.get(name.trim().toLowerCase()) ?? name.trim();
}
