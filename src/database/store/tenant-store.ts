import { createHash } from 'node:crypto';

import {
  BaseStore,
  type Item,
  type ListNamespacesOperation,
  type MatchCondition,
  type Operation,
  type OperationResults,
} from '@langchain/langgraph';

/**
 * The namespace label that holds a tenant's items: a fixed-length hash, so no tenant's label is a prefix of
 * another's (the store matches prefixes with `LIKE 'label%'`) and tenant ids with `.` or `_` (which the store
 * refuses in labels) need no escaping. Clients never see it.
 */
export function tenantLabel(tenantId: string): string {
  return `t${createHash('sha256').update(tenantId).digest('hex').slice(0, 40)}`;
}

/** What the store (and the `:`-joined namespace path it keeps) cannot take in a label. */
export const BAD_LABEL = /[.:%_\\]/;

/**
 * One tenant's view of the shared store, given to graphs as `config.store` (`getStore()`): every namespace
 * an operation names gets the tenant's hidden label in front, and every namespace a result carries loses it,
 * so a graph reads and writes exactly what `/store/items` shows that tenant, and nothing of other tenants.
 */
export class TenantStore extends BaseStore {
  private readonly label: string;

  constructor(
    private readonly inner: BaseStore,
    readonly tenantId: string,
  ) {
    super();
    this.label = tenantLabel(tenantId);
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const scoped = operations.map((op) => this.scope(op));
    const results = (await this.inner.batch(scoped)) as unknown[];
    return results.map((result, i) => this.unscope(operations[i], result)) as OperationResults<Op>;
  }

  private inside(namespace: string[], what: string): string[] {
    for (const label of namespace) {
      if (!label || BAD_LABEL.test(label)) {
        throw new Error(`store ${what} labels cannot be empty or contain '.', ':', '%', '_' or '\\'; got ${JSON.stringify(label)}`);
      }
    }
    return [this.label, ...namespace];
  }

  private scope(op: Operation): Operation {
    if ('namespacePrefix' in op) return { ...op, namespacePrefix: this.inside(op.namespacePrefix, 'namespace prefix') };
    if ('namespace' in op) {
      if ('value' in op && op.namespace.length === 0) throw new Error('store namespace must have at least one label');
      return { ...op, namespace: this.inside(op.namespace, 'namespace') };
    }
    return this.scopeList(op);
  }

  /** listNamespaces: the tenant's label leads every prefix (one is added when none is given); depth counts it. */
  private scopeList(op: ListNamespacesOperation): ListNamespacesOperation {
    const conditions: MatchCondition[] = [];
    let prefixed = false;
    for (const c of op.matchConditions ?? []) {
      if (c.matchType === 'prefix') {
        prefixed = true;
        conditions.push({ ...c, path: [this.label, ...c.path] });
      } else {
        conditions.push(c);
      }
    }
    if (!prefixed) conditions.unshift({ matchType: 'prefix', path: [this.label] });
    return { ...op, matchConditions: conditions, ...(op.maxDepth !== undefined ? { maxDepth: op.maxDepth + 1 } : {}) };
  }

  private unscope(op: Operation, result: unknown): unknown {
    if ('namespacePrefix' in op) return (result as Item[]).map((item) => this.strip(item));
    if ('namespace' in op) return 'value' in op ? result : result ? this.strip(result as Item) : null;
    return (result as string[][]).filter((ns) => ns[0] === this.label).map((ns) => ns.slice(1));
  }

  private strip<T extends Item>(item: T): T {
    return { ...item, namespace: item.namespace.slice(1) };
  }
}
