import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The documentation as a reader meets it: README.md, docs/ and bench/README.md. Every relative link and `#anchor`
 * resolves (GitHub's heading slugs), and the pages carry no notes about the machines they were written on, no work
 * history and no issue numbers — those belong to CHANGELOG.md and bench/results/ (dated, headed by the machine).
 */
const ROOT = path.resolve(__dirname, '..');

function markdownUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownUnder(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : [],
  );
}

/** the pages checked, relative to the repository's root */
const PAGES = ['README.md', 'bench/README.md', ...markdownUnder('docs')];

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The page's lines with fenced code blocks blanked (kept as empty lines, so line numbers stay right). */
function proseLines(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (marker && (!fence || marker.startsWith(fence))) {
      fence = fence ? undefined : marker;
      return '';
    }
    return fence ? '' : line;
  });
}

const withoutCodeSpans = (line: string) => line.replace(/(`+)[^`]*?\1/g, '');

/** GitHub's anchor for a heading: the rendered text, lower-cased, punctuation and symbols dropped, spaces → `-`. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or image: its text
    .replace(/<[^>]+>/g, '') // inline HTML tags
    .replace(/[`*]/g, '') // code spans and emphasis markers (the text stays)
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors of a page: one per heading, a repeated slug numbered `-1`, `-2` … as GitHub does. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of markdown.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(m[1]);
  return anchors;
}

interface Link {
  line: number;
  target: string;
}

/** Inline links and images `[text](target "title")`, and reference definitions `[label]: target`, outside code. */
function linksOf(markdown: string): Link[] {
  const links: Link[] = [];
  proseLines(markdown).forEach((raw, i) => {
    const line = withoutCodeSpans(raw);
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line: i + 1, target: m[1] });
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line);
    if (definition) links.push({ line: i + 1, target: definition[1] });
  });
  return links;
}

/** What is wrong with a link of `page`, or undefined when it resolves. External URLs are not fetched. */
function problemOf(page: string, target: string): string | undefined {
  if (target === '') return 'an empty link';
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto: …
  const [file, anchor] = target.split('#', 2) as [string, string | undefined];
  const resolved = file === '' ? page : path.join(path.dirname(page), decodeURIComponent(file));
  if (path.relative(ROOT, path.join(ROOT, resolved)).startsWith('..')) return 'points outside the repository';
  if (!existsSync(path.join(ROOT, resolved))) return `${resolved} does not exist`;
  if (anchor === undefined) return undefined;
  if (!resolved.endsWith('.md') || statSync(path.join(ROOT, resolved)).isDirectory()) return `#${anchor} on a file that is not a page`;
  if (!anchorsOf(read(resolved)).has(decodeURIComponent(anchor))) return `${resolved} has no heading #${anchor}`;
  return undefined;
}

describe('documentation links', () => {
  it('checks the README, every page of docs/ and the bench README', () => {
    expect(PAGES).toEqual(expect.arrayContaining(['README.md', 'bench/README.md', 'docs/configuration.md']));
    expect(PAGES.length).toBeGreaterThan(10);
  });

  it('gives headings the anchors GitHub gives them', () => {
    expect(slug('Custom auth (langgraph.json `auth`)')).toBe('custom-auth-langgraphjson-auth');
    expect(slug('`http` and `ui` (custom routes, generative UI)')).toBe('http-and-ui-custom-routes-generative-ui');
    expect(slug('Scenarios × tool calling × JSON mode')).toBe('scenarios--tool-calling--json-mode');
    expect(slug('계약의 해지 (Termination)')).toBe('계약의-해지-termination');
    expect(slug('See [Agents](agents.md) first')).toBe('see-agents-first');
    expect([...anchorsOf('# Notes\n## Notes\n```\n# not a heading\n```\n## Notes\n')]).toEqual(['notes', 'notes-1', 'notes-2']);
  });

  it('finds links and refuses the broken ones', () => {
    const links = linksOf('See [a](a.md#x) and ![b](img/b.png "B").\n`[c](not-a-link.md)`\n```\n[d](code.md)\n```\n[e]: ./e.md\n');
    expect(links.map((l) => [l.line, l.target])).toEqual([
      [1, 'a.md#x'],
      [1, 'img/b.png'],
      [6, './e.md'],
    ]);
    expect(problemOf('docs/agents.md', 'missing-page.md')).toBe('docs/missing-page.md does not exist');
    expect(problemOf('docs/agents.md', 'configuration.md#no-such-heading')).toBe('docs/configuration.md has no heading #no-such-heading');
    expect(problemOf('README.md', '#no-such-heading')).toBe('README.md has no heading #no-such-heading');
    expect(problemOf('README.md', '../outside.md')).toBe('points outside the repository');
    expect(problemOf('README.md', 'docs/configuration.md#all-settings')).toBeUndefined();
    expect(problemOf('README.md', 'https://example.com/#anything')).toBeUndefined();
  });

  it.each(PAGES)('%s: every relative link and anchor resolves', (page) => {
    const broken = linksOf(read(page)).flatMap(({ line, target }) => {
      const problem = problemOf(page, target);
      return problem ? [`${page}:${line}: (${target}) ${problem}`] : [];
    });
    expect(broken).toEqual([]);
  });
});

/**
 * What stays out of the documentation, each with a phrase it was written to catch. The patterns look for the
 * wording of such notes, not for single words: "before" and "here" are fine in "null before the first turn" or
 * "the settings here", "session" is a product word.
 */
const NOT_IN_DOCS: { rule: RegExp; why: string; catches: string[] }[] = [
  {
    rule: /\bthis (machine|vm|box)\b|\bsame machine\b|\b(benchmark|development|dev) machines?\b|\bour (machines?|vms?|ci)\b/i,
    why: 'a machine of ours (hardware belongs in docs/performance.md and bench/results/)',
    catches: ['Built on this machine with podman', 'on the benchmark machine', 'before (same machine)', 'on this VM'],
  },
  {
    rule: /\b\d+-vcpu\b/i,
    why: 'a machine of ours',
    catches: ['on the 2-vCPU benchmark machine'],
  },
  {
    rule: /\b(is|are|was|were|been|taken|reachable|measured|tried|built|ran|installed|available) here\b/i,
    why: 'a note about the machine it was written on',
    catches: ['no registry is reachable here', 'as 2024 is taken here', 'not tried here'],
  },
  {
    rule: /\bload average\b|\bshared with other (jobs|work)\b/i,
    why: 'the load of a machine of ours (bench/results/)',
    catches: ['2 shared cores, load average 7–10', '2 vCPU shared with other jobs'],
  },
  {
    rule: /(^|[\s(])#\d+\b|\b(issue|pull request|pr) #?\d+\b|\b(performance|this) issue\b/i,
    why: 'an issue number (history belongs in CHANGELOG.md)',
    catches: ['The run-core rewrite (#22)', 'performance issue #12', 'the issue 27 image', "this issue's check"],
  },
  {
    rule: /\b\d+ (passed|failed) before\b|\bbefore (the|this|a) (fix|change|rewrite|merge)\b|\b(fix|fixes|changes) since\b|\bsince the \w+ (merge|rewrite|fix)\b/i,
    why: 'work history (CHANGELOG.md)',
    catches: ['36 passed before', 'two fixes since', 'since the sentinel merge', '16 before custom auth; 43 before the fix'],
  },
  {
    rule: /\b(previous|this|that|last) stop\b|\b(during|in) (this|that) session\b|\bearlier\b[^.]{0,30}\bsaw\b/i,
    why: 'a work session',
    catches: ["on this stop's final code", 'during that session', 'an earlier 1,000-run soak saw one'],
  },
  {
    rule: /(?<![-\w])seeds?('s)?\b(?![-.\w]| cluster)/i,
    why: '"seed" for the agents\' origin: say the built-in agents, or their names',
    catches: ['graph (seed)', "the seeds' LightweightClassifier", 'Seed scenarios × tool calling', "seed 003's three"],
  },
  {
    rule: /\b(RunAdmission|RunDriver|RunEnds|RunOutcomes|GraphRunner|RunsService|LightweightClassifier|ToolRegistry|TurnLease|LocalRuns)\b/,
    why: 'an internal class name',
    catches: ['executed by the one `RunDriver`', 'calls `RunEnds.awaitEnd`'],
  },
];

/** Dates are for bench/results/ and CHANGELOG.md; the bench README lists the dated files, so it may name them. */
const DATE = /\b20\d\d-\d\d-\d\d\b/;

/** A line as read: code spans kept (a note can hide in one), link targets dropped (a dated file's path is fine). */
const readable = (line: string) => line.replace(/\]\([^)]*\)/g, ']').replace(/^ {0,3}\[[^\]]+\]:.*$/, '');

describe('what stays out of the documentation', () => {
  it.each(NOT_IN_DOCS.map((n) => [n.why, n] as const))('%s: the pattern catches what it was written for', (_why, n) => {
    for (const phrase of n.catches) expect([phrase, n.rule.test(phrase)]).toEqual([phrase, true]);
  });

  it('leaves ordinary wording alone', () => {
    const ordinary = [
      '`title` is the first user message (`null` before the first turn)',
      'a session stays with its agent; sessions belong to a tenant',
      'the settings here are read once at start-up',
      'since it ended, the run is kept for `RUN_EVENTS_TTL_S`',
      '`npm run build` makes a database cluster; `dist/cli/pglite-seed.js` writes it',
      'see [Custom auth](authentication.md#custom-auth-langgraphjson-auth)',
      'a run of the machine-readable code in `X-Error-Code`',
      'a virtual machine with 2 vCPUs',
    ];
    for (const text of ordinary) {
      const hits = NOT_IN_DOCS.filter((n) => n.rule.test(readable(text))).map((n) => n.why);
      expect([text, hits]).toEqual([text, []]);
    }
    expect(DATE.test(readable('[results](../bench/results/2026-11-27-takeover.md)'))).toBe(false);
  });

  it.each(PAGES)('%s: no machine notes, history, issue numbers or internal names', (page) => {
    const found: string[] = [];
    read(page)
      .split('\n')
      .forEach((raw, i) => {
        const line = readable(raw);
        for (const n of NOT_IN_DOCS) if (n.rule.test(line)) found.push(`${page}:${i + 1}: ${n.why}: ${raw.trim()}`);
        if (page !== 'bench/README.md' && DATE.test(line))
          found.push(`${page}:${i + 1}: a date (bench/results/ or CHANGELOG.md): ${raw.trim()}`);
      });
    expect(found).toEqual([]);
  });
});
