const json = (v: unknown) => JSON.stringify(v, null, 2);

/**
 * The texts at a JSON path of an item's value, as LangGraph's PostgresStore embeds them (its own extractor is not
 * exported; the package's exported `getTextAtPath` keeps strings only and has no `$`): `$` the whole value, `a.b`,
 * `a[0]`, `a[-1]`, `a[*].b`; a string, number or boolean leaf as its text, an object or array as its JSON.
 */
export function textsAt(value: unknown, path: string): string[] {
  if (!path || path === '$') return [json(value)];
  return extract(value, tokensOf(path), 0);
}

/** `a.b[0][*].c` → `a`, `b`, `[0]`, `[*]`, `c` */
function tokensOf(path: string): string[] {
  return path.match(/\[[^\]]*\]|[^.[\]]+/g) ?? [];
}

function extract(node: unknown, tokens: string[], pos: number): string[] {
  if (pos >= tokens.length) {
    if (typeof node === 'string' || typeof node === 'number' || typeof node === 'boolean') return [String(node)];
    return node !== null && typeof node === 'object' ? [json(node)] : [];
  }
  const token = tokens[pos];
  if (token.startsWith('[') && token.endsWith(']')) {
    if (!Array.isArray(node)) return [];
    const index = token.slice(1, -1);
    if (index === '*') return node.flatMap((item) => extract(item, tokens, pos + 1));
    let at = Number.parseInt(index, 10);
    if (Number.isNaN(at)) return [];
    if (at < 0) at += node.length;
    return at >= 0 && at < node.length ? extract(node[at], tokens, pos + 1) : [];
  }
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return [];
  return token in node ? extract((node as Record<string, unknown>)[token], tokens, pos + 1) : [];
}
