import { randomUUID } from 'node:crypto';

import { Logger } from '@nestjs/common';

import { DomainException } from '../../core/errors';
import type { StoreEmbedder } from './embedder';
import { textsAt } from './field-text';
import { type FieldVector, type ItemPath, type PendingItem, sameIndex, type VectorTable } from './vector-table';

/** Pending items embedded per background round, at most. */
export const REINDEX_BATCH = 64;
/** A pending item is retried when it has waited this long (its own put's embedding had its chance). */
export const PENDING_STALE_MS = 30_000;

/** An item a put wrote, to embed: its value, and the put's own field list (undefined: the configured one). */
export interface IndexWrite extends ItemPath {
  value: Record<string, unknown>;
  fields?: string[];
}

/** A vector scaled to length 1 (cosine similarity is then a dot product, the same with or without pgvector). */
export function unit(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((s, x) => s + x * x, 0));
  return norm > 0 ? vector.map((x) => x / norm) : vector;
}

/**
 * The store's semantic index: embeds what puts write (the write is committed first; the put waits at most
 * `waitMs` for the vectors, then they follow in the background), re-embeds items left pending (endpoint down,
 * a crash, a changed configuration) in bounded batches, and ranks a query search in the database.
 */
export class SemanticIndex {
  private readonly logger = new Logger('StoreIndex');
  private readonly inflight = new Set<Promise<unknown>>();
  private draining?: Promise<void>;
  private stopped = false;

  constructor(
    readonly table: VectorTable,
    readonly embedder: StoreEmbedder,
    private readonly waitMs: number,
  ) {}

  /** `pgvector` or `exact` (no pgvector: exact similarity over `real[]`, slower at scale). */
  get path(): 'pgvector' | 'exact' {
    return this.table.pgvector ? 'pgvector' : 'exact';
  }

  /**
   * Compares the recorded configuration with this one: on the first start or a change, queues the items for
   * re-embedding (old vectors go) and starts it in the background. Logs the search path.
   */
  async start(): Promise<void> {
    const { embed, dims, fields } = this.embedder;
    const state = await this.table.state();
    const now = { embed, dims: dims ?? null, fields };
    const queued = state && sameIndex(state, now) ? null : await this.table.restart(now, !state);
    if (queued !== null && state) {
      this.logger.warn(
        `store index configuration changed (${state.embed} ${state.dims ?? '?'}d ${JSON.stringify(state.fields)} → ${embed} ${dims ?? '?'}d ${JSON.stringify(fields)}): old vectors discarded, ${queued} items re-embedded in the background`,
      );
    } else if (queued) {
      this.logger.log(`store index enabled: ${queued} existing items embedded in the background`);
    }
    this.logger.log(
      this.table.pgvector
        ? `store semantic search: pgvector (${embed})`
        : `store semantic search: exact similarity (no pgvector): slower at scale (${embed})`,
    );
    void this.drainPending();
  }

  /** Stops background work (no new rounds start). */
  stop(): void {
    this.stopped = true;
  }

  /**
   * Marks the items pending and embeds them; resolves when they are indexed or after `waitMs`, whichever is
   * first (the embedding goes on; a failure leaves them pending for the retry). Never throws.
   */
  async index(writes: IndexWrite[]): Promise<void> {
    if (writes.length === 0) return;
    const items = writes.map((w) => ({ ...w, version: randomUUID(), fields: w.fields ?? null }));
    await this.table.markPending(items);
    const work = this.embedAndWrite(items).catch((err: unknown) => {
      this.logger.warn(`store items left pending for re-embedding: ${(err as Error).message}`);
    });
    this.track(work);
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.waitMs)));
    await Promise.race([work, bound]).finally(() => clearTimeout(timer));
  }

  /** Embeds the query text: the unit vector a search ranks by (503 STORE_EMBEDDINGS_UNAVAILABLE when the call fails). */
  async queryVector(query: string): Promise<number[]> {
    const [vector] = await this.embedder.embedTexts([query]).catch((err: Error) => {
      this.logger.warn(`store query embedding failed: ${err.message}`);
      throw new DomainException(
        'STORE_EMBEDDINGS_UNAVAILABLE',
        `the store's embeddings endpoint did not embed the query; try again later`,
        503,
      );
    });
    this.checkDims(vector);
    return unit(vector);
  }

  /** Re-embeds pending items (older than PENDING_STALE_MS, or queued by a restart) until none is left; one run at a time. */
  drainPending(): Promise<void> {
    if (this.draining || this.stopped) return this.draining ?? Promise.resolve();
    const run = (async () => {
      try {
        for (;;) {
          if (this.stopped) return;
          const batch = await this.table.claimPending(REINDEX_BATCH, PENDING_STALE_MS);
          if (batch.length === 0) return;
          await this.embedAndWrite(batch);
        }
      } catch (err) {
        this.logger.warn(`store re-embedding paused (retried later): ${(err as Error).message}`);
      } finally {
        this.draining = undefined;
      }
    })();
    this.draining = run;
    this.track(run);
    return run;
  }

  /** Resolves when the background embeddings started so far are done (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.all([...this.inflight]);
  }

  private track(work: Promise<unknown>): void {
    this.inflight.add(work);
    void work.finally(() => this.inflight.delete(work));
  }

  /** Texts of every item's fields, embedded in batched calls, then written where the item's version is current. */
  private async embedAndWrite(items: PendingItem[]): Promise<void> {
    const texts: Array<{ item: number; field: string; text: string }> = [];
    items.forEach((item, n) => {
      for (const path of item.fields ?? this.embedder.fields) {
        const found = textsAt(item.value, path);
        found.forEach((text, i) => texts.push({ item: n, field: found.length > 1 ? `${path}#${i}` : path, text }));
      }
    });
    const vectors = texts.length > 0 ? await this.embedder.embedTexts(texts.map((t) => t.text)) : [];
    const perItem: FieldVector[][] = items.map(() => []);
    texts.forEach((t, i) => {
      this.checkDims(vectors[i]);
      perItem[t.item].push({ field: t.field, vector: unit(vectors[i]) });
    });
    await this.table.write(items.map((item, n) => ({ ...item, vectors: perItem[n] })));
  }

  private checkDims(vector: number[]): void {
    const dims = this.embedder.dims;
    if (dims && vector.length !== dims) {
      throw new Error(`store.index.dims is ${dims} but ${this.embedder.embed} returned a vector of ${vector.length}`);
    }
  }
}
