/**
 * `npm run bench:store` (not in CI): the store's search by meaning at STORE_BENCH_ITEMS items (10 000) on both
 * paths — the system Postgres (no pgvector: exact similarity over `real[]`) and the embedded PGlite (pgvector) —
 * and what indexing adds to a put.
 *
 * The service in this process, embeddings from the scripted OpenAI-compatible server (256 dimensions). The items
 * are loaded in bulk (their vectors computed here, as the endpoint would), then:
 *   - search: STORE_BENCH_QUERIES (50) `store.search(prefix, { query })` with limit 10 over all the items — the
 *             query's embedding call included — p50 / p99;
 *   - put:    STORE_BENCH_PUTS (100) puts through the indexed store (the put waits for its vectors) against the
 *             same puts through a PostgresStore without index, p50.
 * Prints a markdown table.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { Pool } from 'pg';

import { PG_POOL } from '../src/database/pg-pool';
import type { SemanticStore } from '../src/database/store/semantic-store';
import { createPostgresStore, LANGGRAPH_STORE } from '../src/database/store/store.module';
import { createTestDatabase } from '../test/support/infra';
import { embed, ScriptedModelServer } from '../test/support/model-server';
import { startApp } from '../test/support/test-app';
import { percentile, round } from './lib';

const ITEMS = Number(process.env.STORE_BENCH_ITEMS ?? 10_000);
const QUERIES = Number(process.env.STORE_BENCH_QUERIES ?? 50);
const PUTS = Number(process.env.STORE_BENCH_PUTS ?? 100);
const LOAD_BATCH = 500;
const WORDS = ['cat', 'dog', 'rain', 'market', 'river', 'garden', '김치', '바다', 'train', 'music', 'winter', 'coffee'];

const textOf = (i: number) =>
  `${WORDS[i % WORDS.length]} note ${i} about ${WORDS[(i * 7) % WORDS.length]} and ${WORDS[(i * 5) % WORDS.length]}`;

/** Items and their vectors straight into the tables, as puts and their embeddings would leave them. */
async function load(pool: Pool, pgvector: boolean, items: number): Promise<void> {
  for (let start = 0; start < items; start += LOAD_BATCH) {
    const n = Math.min(LOAD_BATCH, items - start);
    const keys = Array.from({ length: n }, (_, i) => `k${start + i}`);
    const texts = keys.map((_, i) => textOf(start + i));
    await pool.query(
      `INSERT INTO langgraph.store (namespace_path, key, value) SELECT 'bench:items', k, jsonb_build_object('text', t) FROM unnest($1::text[], $2::text[]) AS r(k, t)`,
      [keys, texts],
    );
    const vectors = texts.map((t) => `[${embed(t).join(',')}]`);
    await pool.query(
      `INSERT INTO store_vectors (namespace_path, key, field_path, embedding${pgvector ? ', embedding_v' : ''})
         SELECT 'bench:items', k, 'text', translate(v, '[]', '{}')::real[]${pgvector ? ', v::vector' : ''} FROM unnest($1::text[], $2::text[]) AS r(k, v)`,
      [keys, vectors],
    );
  }
}

async function timed(n: number, op: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await op(i);
    out.push(performance.now() - t);
  }
  return out;
}

/** One database's figures: its search path, query search p50 / p99, put p50 indexed and without index (ms). */
interface StoreFigures {
  label: string;
  path: string;
  items: number;
  search: [number, number];
  put: [number, number];
}

async function measure(label: string, env: Record<string, string>, model: ScriptedModelServer, items: number): Promise<StoreFigures> {
  // beside the fixture graphs (from the repository's root, as npm runs it): a langgraph.json needs one
  const config = path.resolve('test', 'fixtures', 'graphs', `.bench-store-${process.pid}.json`);
  const storeConfig = { index: { embed: 'openai:bench', dims: 256, fields: ['text'] } };
  writeFileSync(config, JSON.stringify({ graphs: { memory: './memory.ts:graph' }, store: storeConfig }));
  const svc = await startApp({ ...env, EMBEDDINGS_BASE_URL: model.baseUrl, LANGGRAPH_CONFIG: config });
  try {
    const store = svc.app.get<SemanticStore>(LANGGRAPH_STORE);
    const pool = svc.app.get<Pool>(PG_POOL);
    await load(pool, store.index!.path === 'pgvector', items);
    await store.search(['bench'], { query: 'warm up', limit: 10 });
    const search = await timed(QUERIES, (i) => store.search(['bench'], { query: `${WORDS[i % WORDS.length]} and rain`, limit: 10 }));
    const indexed = await timed(PUTS, (i) => store.put(['bench', 'puts'], `p${i}`, { text: textOf(i) }));
    const plain = await createPostgresStore(pool);
    const bare = await timed(PUTS, (i) => plain.put(['bench', 'bare'], `p${i}`, { text: textOf(i) }));
    const p = (v: number[], at: number) => round(percentile(v, at), 1);
    return { label, path: store.index!.path, items, search: [p(search, 50), p(search, 99)], put: [p(indexed, 50), p(bare, 50)] };
  } finally {
    await svc.close();
    rmSync(config, { force: true });
  }
}

/** Both databases' figures: the system Postgres (exact) and the embedded PGlite (pgvector). */
export async function benchStoreSearch(items = ITEMS): Promise<StoreFigures[]> {
  const model = new ScriptedModelServer();
  await model.start();
  const figures: StoreFigures[] = [];
  const db = await createTestDatabase('bench_store');
  try {
    figures.push(await measure('system Postgres 15', { DATABASE_URL: db.url }, model, items));
  } finally {
    await db.drop();
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-store-pglite-'));
  try {
    figures.push(await measure('embedded PGlite', { DATA_DIR: dataDir }, model, items));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await model.stop();
  }
  return figures;
}

/** `npm run bench`'s rows: [what, measured, target]. */
export async function benchStoreRows(items: number): Promise<Array<[string, string, string]>> {
  return (await benchStoreSearch(items)).flatMap((f): Array<[string, string, string]> => [
    [`store query search, ${f.items} items, ${f.label} (${f.path}): p50 / p99`, `${f.search[0]} / ${f.search[1]} ms`, 'report'],
    [`… a put, indexed / without index, p50`, `${f.put[0]} / ${f.put[1]} ms`, 'report'],
  ]);
}

async function main(): Promise<void> {
  const figures = await benchStoreSearch();
  console.log('| database | path | items | query search p50 / p99 | put p50, indexed | put p50, no index |');
  console.log('|---|---|---|---|---|---|');
  for (const f of figures) {
    console.log(`| ${f.label} | ${f.path} | ${f.items} | ${f.search[0]} ms / ${f.search[1]} ms | ${f.put[0]} ms | ${f.put[1]} ms |`);
  }
}

if (require.main === module) {
  void main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
