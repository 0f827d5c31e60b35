import { Inject, Injectable } from '@nestjs/common';

import type { HealthIndicator } from '../../observability/health-indicator';
import type { SemanticStore } from './semantic-store';
import { LANGGRAPH_STORE } from './store.tokens';

/**
 * Readiness of the store's semantic index: which path ranks a query search (`pgvector`, or `exact` similarity
 * without pgvector: slower at scale) and how many items wait for their vectors (a re-embedding after a
 * configuration change, or an endpoint that is down). Only degrades: writes and reads work without it.
 */
@Injectable()
export class StoreIndexHealthIndicator implements HealthIndicator {
  readonly name = 'store_index';
  readonly degradesOnly = true;
  private pending = 0;

  constructor(@Inject(LANGGRAPH_STORE) private readonly store: SemanticStore) {}

  configured(): boolean {
    return !!this.store.index;
  }

  async check(): Promise<boolean> {
    this.pending = await this.store.index!.table.pendingCount();
    return true;
  }

  details(): Record<string, unknown> {
    const index = this.store.index;
    if (!index) return { store_search: 'text' };
    return {
      store_search: index.path === 'pgvector' ? 'pgvector' : 'exact (no pgvector): slower at scale',
      store_index_pending: this.pending,
    };
  }
}
