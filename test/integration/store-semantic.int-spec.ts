import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { Pool } from 'pg';

import { PG_POOL } from '../../src/database/pg-pool';
import type { SemanticStore } from '../../src/database/store/semantic-store';
import { LANGGRAPH_STORE, StoreBackground } from '../../src/database/store/store.module';
import { StoreSweeper } from '../../src/database/store/store-sweeper';
import { tenantLabel, TenantStore } from '../../src/database/store/tenant-store';
import { createTestDatabase, type TestDatabase } from '../support/infra';
import { embed, ScriptedModelServer } from '../support/model-server';
import { type RunningApp, startApp, waitFor } from '../support/test-app';

const KEY = 'tenant-one-key-0123456789';
const GRAPHS = path.join(__dirname, '..', 'fixtures', 'graphs');

const DOCS: Record<string, string> = {
  cat: 'the cat sat on the warm windowsill',
  dog: 'a dog barked at the mail carrier',
  stocks: 'stock markets rallied on interest rate news',
  kimchi: '김치찌개는 돼지고기와 묵은지로 끓인다',
  rain: 'heavy rain flooded the city streets',
};

/** The scripted endpoint's ranking, computed here: cosine of the trigram embeddings (they are unit vectors). */
const similarity = (a: string, b: string) => {
  const x = embed(a);
  const y = embed(b);
  return x.reduce((s, v, i) => s + v * y[i], 0);
};
const expectedRanking = (query: string, keys: string[]) =>
  [...keys].sort((a, b) => similarity(query, DOCS[b]) - similarity(query, DOCS[a]));

/** A langgraph.json next to the fixture graphs with this `store` key (removed by the caller). */
function langgraphJson(store: unknown): string {
  const file = path.join(GRAPHS, `.store-semantic-${process.pid}-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify({ graphs: { memory: './memory.ts:graph' }, store }));
  return file;
}

async function api<T = any>(svc: RunningApp, method: string, route: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${svc.url}${route}`, {
    method,
    headers: { 'x-api-key': KEY, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

const put = (svc: RunningApp, namespace: string[], key: string, value: Record<string, unknown>, extra: object = {}) =>
  api(svc, 'PUT', '/store/items', { namespace, key, value, ...extra });
const search = (svc: RunningApp, body: object) =>
  api<{ items: Array<{ key: string; namespace: string[]; score?: number; value: any }> }>(svc, 'POST', '/store/items/search', body);

/** Where the app's database is: a fresh database on the system Postgres (no pgvector) or an embedded PGlite (pgvector). */
const TARGETS: Array<[string, 'exact' | 'pgvector', () => Promise<{ env: Record<string, string>; drop(): Promise<void> }>]> = [
  [
    'system Postgres',
    'exact',
    async () => {
      const db: TestDatabase = await createTestDatabase('store_semantic');
      return { env: { DATABASE_URL: db.url }, drop: () => db.drop() };
    },
  ],
  [
    'embedded Postgres (PGlite)',
    'pgvector',
    async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'store-semantic-'));
      return { env: { DATA_DIR: dir }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  ],
];

describe.each(TARGETS)('store semantic search and TTL on the %s', (_name, searchPath, database) => {
  const model = new ScriptedModelServer();
  let svc: RunningApp;
  let drop: () => Promise<void>;
  let config: string;
  let pool: Pool;

  beforeAll(async () => {
    await model.start();
    const db = await database();
    drop = db.drop;
    config = langgraphJson({
      index: { embed: 'openai:scripted-embeddings', dims: 256, fields: ['text'] },
      ttl: { refresh_on_read: false, sweep_interval_minutes: 60 },
    });
    svc = await startApp({ ...db.env, API_KEYS: `t1:${KEY}`, EMBEDDINGS_BASE_URL: model.baseUrl, LANGGRAPH_CONFIG: config });
    pool = svc.app.get<Pool>(PG_POOL);
    for (const [key, text] of Object.entries(DOCS)) {
      expect((await put(svc, ['docs'], key, { text, kind: key === 'stocks' ? 'finance' : 'life' })).status).toBe(204);
    }
  }, 180_000);

  afterAll(async () => {
    await svc?.close();
    await drop?.();
    rmSync(config, { force: true });
    await model.stop();
  });

  it('ranks /store/items/search by similarity in the database, with scores, the same ranking on either path', async () => {
    const ready = await fetch(`${svc.url}/health/ready`).then((r) => r.json() as Promise<Record<string, any>>);
    expect(ready.store_search).toMatch(searchPath === 'pgvector' ? /^pgvector$/ : /^exact \(no pgvector\)/);

    for (const query of ['a cat on the windowsill', 'rain in the streets', '김치찌개 끓이는 법']) {
      const found = await search(svc, { namespace_prefix: ['docs'], query, limit: 5 });
      expect(found.status).toBe(200);
      expect(found.body.items.map((i) => i.key)).toEqual(expectedRanking(query, Object.keys(DOCS)));
      for (const item of found.body.items) expect(item.score).toBeCloseTo(similarity(query, DOCS[item.key]), 4);
    }
  });

  it('applies filter, namespace prefix, limit and offset to a query search', async () => {
    await put(svc, ['other'], 'cat2', { text: DOCS.cat, kind: 'life' });
    const query = 'a cat on the windowsill';
    const life = expectedRanking(query, ['cat', 'dog', 'kimchi', 'rain']);
    const filtered = await search(svc, { namespace_prefix: ['docs'], query, filter: { kind: 'life' }, limit: 2, offset: 1 });
    expect(filtered.body.items.map((i) => i.key)).toEqual(life.slice(1, 3));
    const all = await search(svc, { query, limit: 10 });
    expect(
      all.body.items
        .slice(0, 2)
        .map((i) => i.key)
        .sort(),
    ).toEqual(['cat', 'cat2']);
  });

  it('leaves out items put with index: false, and embeds only the fields a put names', async () => {
    await put(svc, ['noindex'], 'hidden', { text: DOCS.cat }, { index: false });
    await put(svc, ['noindex'], 'titled', { text: 'nothing alike', title: DOCS.cat }, { index: ['title'] });
    const found = await search(svc, { namespace_prefix: ['noindex'], query: DOCS.cat });
    expect(found.body.items.map((i) => i.key)).toEqual(['titled']);
    expect(found.body.items[0].score).toBeCloseTo(1, 4);
    const { rows } = await pool.query(`SELECT key, field_path FROM store_vectors WHERE namespace_path = $1 ORDER BY key`, [
      `${tenantLabel('t1')}:noindex`,
    ]);
    expect(rows).toEqual([{ key: 'titled', field_path: 'title' }]);
    // the hidden item is there for a plain read
    expect((await api(svc, 'GET', '/store/items?namespace=noindex&key=hidden')).body.value).toEqual({ text: DOCS.cat });
  });

  it("gives a graph's config.store (TenantStore) the same query search", async () => {
    const store = new TenantStore(svc.app.get<SemanticStore>(LANGGRAPH_STORE), 't1');
    const query = 'heavy rain';
    const viaGraph = await store.search(['docs'], { query, limit: 5 });
    const viaApi = await search(svc, { namespace_prefix: ['docs'], query, limit: 5 });
    expect(viaGraph.map((i) => i.key)).toEqual(viaApi.body.items.map((i) => i.key));
    expect(viaGraph[0]).toMatchObject({ namespace: ['docs'], key: 'rain' });
    expect(viaGraph[0].score).toBeGreaterThan(viaGraph[1].score!);
  });

  it('hides an expired item at once and sweeps it (vectors and owner rows too), one sweeper per round', async () => {
    const path = `${tenantLabel('t1')}:ttl`;
    for (const key of ['a', 'b', 'c']) expect((await put(svc, ['ttl'], key, { text: `expiring ${key}` }, { ttl: 0.005 })).status).toBe(204);
    await put(svc, ['ttl'], 'keep', { text: 'expiring never' });
    await pool.query(`INSERT INTO store_owners (prefix, key, owner) VALUES ($1, 'a', 'someone')`, [path]);
    await new Promise((r) => setTimeout(r, 500)); // 0.005 minutes = 300 ms
    expect((await api(svc, 'GET', '/store/items?namespace=ttl&key=a')).body).toBeNull();
    expect((await search(svc, { namespace_prefix: ['ttl'], query: 'expiring' })).body.items.map((i) => i.key)).toEqual(['keep']);
    expect((await search(svc, { namespace_prefix: ['ttl'] })).body.items.map((i) => i.key)).toEqual(['keep']);
    const count = async (table: string, column = 'namespace_path') =>
      (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`, [path])).rows[0].n;
    expect(await count('langgraph.store')).toBe(4); // invisible, not yet deleted

    const other = new StoreSweeper(pool);
    const rounds = await Promise.all([svc.app.get(StoreBackground).sweeper.sweep(), other.sweep()]);
    expect(rounds.reduce<number>((n, r) => n + (r ?? 0), 0)).toBe(3);
    expect(rounds).toContain(3);
    expect(await count('langgraph.store')).toBe(1);
    expect(await count('store_vectors')).toBe(1);
    expect(await count('store_owners', 'prefix')).toBe(0);
  });

  it('renews an item’s own TTL on a read that asks (refresh_ttl), not on one that does not', async () => {
    await put(svc, ['renew'], 'k', { text: 'renewable' }, { ttl: 10 });
    const expiry = async () =>
      (
        await pool.query<{ e: Date; u: Date }>(`SELECT expires_at AS e, updated_at AS u FROM langgraph.store WHERE namespace_path = $1`, [
          `${tenantLabel('t1')}:renew`,
        ])
      ).rows[0];
    const first = await expiry();
    expect(first.e.getTime() - first.u.getTime()).toBeGreaterThan(9.9 * 60_000);
    await new Promise((r) => setTimeout(r, 50));
    await api(svc, 'GET', '/store/items?namespace=renew&key=k&refresh_ttl=false');
    expect((await expiry()).e).toEqual(first.e);
    await api(svc, 'GET', '/store/items?namespace=renew&key=k&refresh_ttl=true');
    const renewed = await expiry();
    expect(renewed.e.getTime()).toBeGreaterThan(first.e.getTime());
    expect(renewed.e.getTime() - renewed.u.getTime()).toBeCloseTo(first.e.getTime() - first.u.getTime(), -1);
    await new Promise((r) => setTimeout(r, 50));
    await search(svc, { namespace_prefix: ['renew'], query: 'renewable', refresh_ttl: true });
    expect((await expiry()).e.getTime()).toBeGreaterThan(renewed.e.getTime());
    expect((await api(svc, 'GET', '/store/items?namespace=renew&key=k&refresh_ttl=maybe')).status).toBe(422);
  });
});

/** An OpenAI-compatible endpoint in front of the scripted one that answers embeddings `delayMs` late. */
async function slowProxy(target: string, delay: { ms: number }): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      setTimeout(() => {
        void fetch(`${target}${req.url!.replace(/^\/v1/, '')}`, {
          method: req.method,
          headers: { 'content-type': 'application/json' },
          body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
        })
          .then(async (r) => res.writeHead(r.status, { 'content-type': 'application/json' }).end(Buffer.from(await r.arrayBuffer())))
          .catch(() => res.destroy());
      }, delay.ms);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

describe('store semantic index: slow endpoint and configuration changes (system Postgres)', () => {
  const model = new ScriptedModelServer();
  const files: string[] = [];
  beforeAll(() => model.start());
  afterAll(async () => {
    for (const f of files) rmSync(f, { force: true });
    await model.stop();
  });

  it('does not hold a put past STORE_EMBED_WAIT_MS on a slow endpoint; the item becomes searchable later', async () => {
    const db = await createTestDatabase('store_slow_embed');
    const delay = { ms: 0 };
    const proxy = await slowProxy(model.baseUrl, delay);
    const config = langgraphJson({ index: { embed: 'openai:scripted-embeddings', dims: 256, fields: ['text'] } });
    files.push(config);
    const svc = await startApp({
      DATABASE_URL: db.url,
      API_KEYS: `t1:${KEY}`,
      EMBEDDINGS_BASE_URL: proxy.url,
      LANGGRAPH_CONFIG: config,
      STORE_EMBED_WAIT_MS: '300',
    });
    try {
      delay.ms = 2500;
      const started = Date.now();
      expect((await put(svc, ['slow'], 'k', { text: DOCS.dog })).status).toBe(204);
      expect(Date.now() - started).toBeLessThan(1500);
      expect((await api(svc, 'GET', '/store/items?namespace=slow&key=k')).body.value).toEqual({ text: DOCS.dog }); // committed
      delay.ms = 0;
      const pending = await svc.app.get<Pool>(PG_POOL).query(`SELECT count(*)::int AS n FROM store_index_pending`);
      expect(pending.rows[0].n).toBe(1);
      const found = await waitFor(async () => {
        const items = (await search(svc, { namespace_prefix: ['slow'], query: 'dog barked' })).body.items;
        return items.length > 0 ? items : undefined;
      }, 10_000);
      expect(found.map((i) => i.key)).toEqual(['k']);

      // the endpoint gone: a put still commits (left pending), a query search is a clear 503
      await proxy.close();
      expect((await put(svc, ['slow'], 'down', { text: DOCS.rain })).status).toBe(204);
      expect((await api(svc, 'GET', '/store/items?namespace=slow&key=down')).body.value).toEqual({ text: DOCS.rain });
      const refused = await search(svc, { namespace_prefix: ['slow'], query: 'rain' });
      expect(refused.status).toBe(503);
      expect(JSON.stringify(refused.body)).toContain('STORE_EMBEDDINGS_UNAVAILABLE');
      await svc.app.get(LANGGRAPH_STORE).index.idle();
      const left = await svc.app.get<Pool>(PG_POOL).query(`SELECT key FROM store_index_pending`);
      expect(left.rows).toEqual([{ key: 'down' }]);
    } finally {
      await svc.close();
      await proxy.close();
      await db.drop();
    }
  }, 60_000);

  it('sweeps expired items on its own every sweep_interval_minutes', async () => {
    const db = await createTestDatabase('store_sweep_timer');
    const config = langgraphJson({ ttl: { default_ttl: 0.005, sweep_interval_minutes: 0.02 } });
    files.push(config);
    const svc = await startApp({ DATABASE_URL: db.url, API_KEYS: `t1:${KEY}`, LANGGRAPH_CONFIG: config });
    try {
      const pool = svc.app.get<Pool>(PG_POOL);
      expect((await put(svc, ['swept'], 'default-ttl', { text: 'gone soon' })).status).toBe(204);
      expect((await put(svc, ['swept'], 'own-ttl', { text: 'kept' }, { ttl: 60 })).status).toBe(204);
      const rows = async () => (await pool.query(`SELECT key FROM langgraph.store ORDER BY key`)).rows.map((r: { key: string }) => r.key);
      expect(await rows()).toEqual(['default-ttl', 'own-ttl']);
      // 0.02 minutes = 1.2 s between sweeps; the item expires after 0.3 s
      await waitFor(async () => ((await rows()).length === 1 ? true : undefined), 5000, 100);
      expect(await rows()).toEqual(['own-ttl']);
    } finally {
      await svc.close();
      await db.drop();
    }
  }, 60_000);

  it('re-embeds in the background when the index configuration changed between starts; index: false stays out', async () => {
    const db = await createTestDatabase('store_reindex');
    const first = langgraphJson({ index: { embed: 'openai:scripted-embeddings', dims: 256, fields: ['text'] } });
    const second = langgraphJson({ index: { embed: 'openai:scripted-embeddings-v2', dims: 256, fields: ['title'] } });
    files.push(first, second);
    const env = { DATABASE_URL: db.url, API_KEYS: `t1:${KEY}`, EMBEDDINGS_BASE_URL: model.baseUrl };
    let svc = await startApp({ ...env, LANGGRAPH_CONFIG: first });
    try {
      await put(svc, ['notes'], 'a', { text: DOCS.cat, title: DOCS.stocks });
      await put(svc, ['notes'], 'b', { text: DOCS.stocks, title: DOCS.cat });
      await put(svc, ['notes'], 'off', { text: DOCS.cat, title: DOCS.cat }, { index: false });
      expect((await search(svc, { namespace_prefix: ['notes'], query: DOCS.cat })).body.items.map((i) => i.key)).toEqual(['a', 'b']);
    } finally {
      await svc.close();
    }
    model.reset();
    svc = await startApp({ ...env, LANGGRAPH_CONFIG: second });
    try {
      const pool = svc.app.get<Pool>(PG_POOL);
      await waitFor(async () =>
        (await pool.query(`SELECT count(*)::int AS n FROM store_index_pending`)).rows[0].n === 0 ? true : undefined,
      );
      const { rows } = await pool.query(`SELECT key, field_path FROM store_vectors ORDER BY key`);
      expect(rows).toEqual([
        { key: 'a', field_path: 'title' },
        { key: 'b', field_path: 'title' },
      ]);
      expect((await pool.query(`SELECT embed, fields FROM store_index_state`)).rows).toEqual([
        { embed: 'openai:scripted-embeddings-v2', fields: ['title'] },
      ]);
      expect(model.embeddingCalls).toBeGreaterThan(0);
      expect((await search(svc, { namespace_prefix: ['notes'], query: DOCS.cat })).body.items.map((i) => i.key)).toEqual(['b', 'a']);
    } finally {
      await svc.close();
      await db.drop();
    }
  }, 90_000);

  it('without embeddings, a query search is the text search, on the embedded Postgres (one connection) too', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'store-text-'));
    const svc = await startApp({ DATA_DIR: dir, API_KEYS: `t1:${KEY}` });
    try {
      expect((await put(svc, ['notes'], 'tea', { text: 'I like green tea in the morning' })).status).toBe(204);
      expect((await put(svc, ['notes'], 'rain', { text: DOCS.rain })).status).toBe(204);
      const found = await search(svc, { namespace_prefix: ['notes'], query: 'tea' });
      expect(found.status).toBe(200);
      expect(found.body.items.map((i) => i.key)).toEqual(['tea']);
      expect(found.body.items[0].score).toBeUndefined();
    } finally {
      await svc.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
