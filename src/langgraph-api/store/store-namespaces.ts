/** A namespace listing's query (`POST /store/namespaces`). */
export interface NamespaceQuery {
  prefix?: string[] | null;
  suffix?: string[] | null;
  max_depth?: number | null;
  limit: number;
  offset: number;
}

const startsWith = (ns: string[], part: string[]) => part.every((label, i) => ns[i] === label);
const endsWith = (ns: string[], part: string[]) => part.every((label, i) => ns[ns.length - part.length + i] === label);

/**
 * The page of a listing over the namespaces a user owns items in (StoreOwners, each with the tenant's label first,
 * sorted), as the store lists them: those under `prefix` and ending with `suffix`, truncated to `max_depth`
 * (and deduplicated).
 */
export function ownedNamespaces(labelled: string[][], q: NamespaceQuery): string[][] {
  const unique = new Map<string, string[]>();
  for (const full of labelled) {
    const ns = full.slice(1);
    if (q.prefix?.length && !startsWith(ns, q.prefix)) continue;
    if (q.suffix?.length && (ns.length < q.suffix.length || !endsWith(ns, q.suffix))) continue;
    const cut = q.max_depth ? ns.slice(0, q.max_depth) : ns;
    unique.set(cut.join('\u0000'), cut);
  }
  return [...unique.values()].slice(q.offset, q.offset + q.limit);
}
