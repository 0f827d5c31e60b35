/**
 * A searchable knowledge table and the row that owns it: the owner carries `tenant_id`, so every query on the
 * table joins its owner (`t` → `p`) and filters on the tenant.
 */
export interface OwnedTable {
  /** The searched rows (alias `t`): `id`, `tsv`, `embedding` and the text columns live here. */
  readonly table: 'contract_articles' | 'document_chunks';
  /** The owning rows (alias `p`) with `id` and `tenant_id`. */
  readonly owner: 'contracts' | 'documents';
  /** The column of `t` referencing `p.id`. */
  readonly ownerKey: 'contract_id' | 'document_id';
}

export const CONTRACT_ARTICLES: OwnedTable = { table: 'contract_articles', owner: 'contracts', ownerKey: 'contract_id' };
export const DOCUMENT_CHUNKS: OwnedTable = { table: 'document_chunks', owner: 'documents', ownerKey: 'document_id' };

/** `FROM <table> t JOIN <owner> p ON …`: the tenant is `p.tenant_id`. */
export function ownedFrom(t: OwnedTable): string {
  return `FROM ${t.table} t JOIN ${t.owner} p ON p.id = t.${t.ownerKey}`;
}
