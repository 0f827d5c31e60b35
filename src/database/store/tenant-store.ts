import { createHash } from 'node:crypto';

import {
  BaseStore,
  type Item,
  type ListNamespacesOperation,
  type MatchCondition,
  type Operation,
  type OperationResults,
  type PutOperation,
} from '@langchain/langgraph';

import type { StoreOwners } from './store-owners';

/** Labels already hashed (every run builds its tenant's store view); bounded, for tenants that come and go. */
const LABELS = new Map<string, string>();
const MAX_LABELS = 10_000;

/**
 * The namespace label that holds a tenant's items: a fixed-length hash, so no tenant's label is a prefix of
 * another's (the store matches prefixes with `LIKE 'label%'`) and tenant ids with `.` or `_` (which the store
 * refuses in labels) need no escaping. Clients never see it.
 */
export function tenantLabel(tenantId: string): string {
  let label = LABELS.get(tenantId);
  if (label === undefined) {
    label = `t${createHash('sha256').update(tenantId).digest('hex').slice(0, 40)}`;
    if (LABELS.size >= MAX_LABELS) LABELS.clear();
    LABELS.set(tenantId, label);
  }
  return label;
}

/** What the store (and the `:`-joined namespace path it keeps) cannot take in a label. */
export const BAD_LABEL = /[.:%_\\]/;

/** The user a run acts for, and where the items it puts are recorded as theirs. */
export interface StoreActor {
  user: string;
  owners: StoreOwners;
}

/**
 * One tenant's view of the shared store, given to graphs as `config.store` (`getStore()`): every namespace
 * an operation names gets the tenant's hidden label in front, and every namespace a result carries loses it,
 * so a graph reads and writes exactly what `/store/items` shows that tenant, and nothing of other tenants.
 * With an `actor` (a run a user asked for), an item the graph creates is that user's, as one `PUT /store/items`
 * of theirs would make it (auth/resource-access.ts's owner rule): an existing item keeps its owner, a deleted one
 * loses it.
 */
export class TenantStore extends BaseStore {
  private readonly label: string;

  constructor(
    private readonly inner: BaseStore,
    readonly tenantId: string,
    private readonly actor?: StoreActor,
  ) {
    super();
    this.label = tenantLabel(tenantId);
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const scoped = operations.map((op) => this.scope(op));
    const writes = this.actor ? scoped.filter((op): op is PutOperation => 'value' in op) : [];
    const created = writes.length > 0 ? await this.absent(writes.filter((op) => op.value !== null)) : [];
    const results = (await this.inner.batch(scoped)) as unknown[];
    const actor = this.actor;
    if (actor) {
      const deleted = writes.filter((op) => op.value === null);
      await Promise.all([...created.map((op) => actor.owners.record(op, actor.user)), ...deleted.map((op) => actor.owners.forget(op))]);
    }
    return results.map((result, i) => this.unscope(operations[i], result)) as OperationResults<Op>;
  }

  /** The puts whose item does not exist yet (read before they are written: those become the actor's). */
  private async absent(puts: PutOperation[]): Promise<PutOperation[]> {
    if (puts.length === 0) return [];
    const found = (await this.inner.batch(puts.map((op) => ({ namespace: op.namespace, key: op.key })))) as Array<Item | null>;
    return puts.filter((_, i) => !found[i]);
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
