import { useService } from '../support/service-fixture';

const KEY = 'bounds-key-0123456789abcdef';
const list = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
const nested = (levels: number): Record<string, unknown> => (levels === 0 ? { leaf: 1 } : { n: nested(levels - 1) });

/** hostile filters, each with the limit its 422 names */
const HOSTILE: Array<[string, Record<string, unknown>, string]> = [
  ['70,000 values in one list', { f: { $in: list(70_000) } }, 'over the limit of 1000 values per filter'],
  ['1,001 keys', Object.fromEntries(list(1001).map((v) => [v, 1])), 'over the limit of 1000 values per filter'],
  ['20 levels of nesting', nested(20), 'nested over the limit of 8 levels'],
  ['a 100,000-character key', { ['k'.repeat(100_000)]: 1 }, 'a key of 100000 characters, over the limit of 256 characters per key'],
  ['a 70,000-character value', { f: '가'.repeat(70_000) }, 'characters as JSON, over the limit of 65536 characters per filter'],
];

/**
 * Search filters are bounded (values, depth, key length, size): past a bound the answer is a 422 naming the limit,
 * never a 500 (70,000 `$in` values were 70,000 SQL parameters). Every search body that takes one: the store's
 * `filter`, the `metadata`/`values` of thread, assistant and cron searches and counts, a thread's history.
 */
describe('search filters are bounded (422 naming the limit)', () => {
  const svc = useService('filter_bounds', { env: { API_KEYS: `t1:${KEY}` } });
  const call = async (method: string, p: string, body: unknown) => {
    const res = await fetch(`${svc.url}${p}`, {
      method,
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
  let thread: string;

  beforeAll(async () => {
    thread = (await call('POST', '/threads', { metadata: { topic: 'bounds' } })).body.thread_id;
    expect((await call('PUT', '/store/items', { namespace: ['docs'], key: 'k', value: { f: 'v999', 주제: '한계' } })).status).toBe(204);
  });

  const routes = (filter: Record<string, unknown>): Array<[string, string, unknown, string]> => [
    ['POST', '/store/items/search', { namespace_prefix: ['docs'], filter }, 'filter'],
    ['POST', '/threads/search', { metadata: filter }, 'metadata'],
    ['POST', '/threads/search', { values: filter }, 'values'],
    ['POST', '/threads/count', { metadata: filter }, 'metadata'],
    ['POST', '/threads/count', { values: filter }, 'values'],
    ['POST', '/assistants/search', { metadata: filter }, 'metadata'],
    ['POST', '/assistants/count', { metadata: filter }, 'metadata'],
    ['POST', '/runs/crons/search', { metadata: filter }, 'metadata'],
    ['POST', '/runs/crons/count', { metadata: filter }, 'metadata'],
    ['POST', `/threads/${thread}/history`, { metadata: filter }, 'metadata'],
  ];

  it.each(HOSTILE)('%s: every search answers 422 naming the limit', async (_why, filter, limit) => {
    for (const [method, p, body, field] of routes(filter)) {
      const res = await call(method, p, body);
      expect({ route: p, field, status: res.status }).toEqual({ route: p, field, status: 422 });
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.message).toContain(`${field}: `);
      expect(res.body.error.message).toContain(limit);
    }
  });

  it('a filter within the bounds still finds what it asks for (1,000 $in values, Korean fields)', async () => {
    const found = await call('POST', '/store/items/search', { namespace_prefix: ['docs'], filter: { f: { $in: list(1000) } } });
    expect(found.status).toBe(200);
    expect(found.body.items.map((i: { key: string }) => i.key)).toEqual(['k']);
    const korean = await call('POST', '/store/items/search', { namespace_prefix: ['docs'], filter: { 주제: '한계' } });
    expect(korean.body.items.map((i: { key: string }) => i.key)).toEqual(['k']);
    const threads = await call('POST', '/threads/search', {
      metadata: { topic: { a: 1 }, ...Object.fromEntries(list(10).map((v) => [v, v])) },
    });
    expect(threads.status).toBe(200);
    expect(
      (await call('POST', '/threads/search', { metadata: { topic: 'bounds' } })).body.map((t: { thread_id: string }) => t.thread_id),
    ).toEqual([thread]);
  });
});
