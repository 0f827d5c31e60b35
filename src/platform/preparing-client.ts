import { Client } from 'pg';

/** Statement texts are few (the service's own SQL, TypeORM's, the checkpointer's); past this, texts go unnamed. */
const MAX_NAMED = 1000;
const names = new Map<string, string>();

function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (!name && names.size < MAX_NAMED) names.set(text, (name = `ao_${names.size + 1}`));
  return name;
}

/**
 * A `pg` client that sends every parameterised statement as a named prepared statement, so Postgres parses
 * and plans it once per connection instead of on every call (our CTE statements: Postgres CPU 245 → 65 µs,
 * round trip 690 → 200 µs, measured on the bench machine). Used by TypeORM's pool and the checkpointer's
 * (`Pool({ Client })`), so TypeORM's, the checkpointer's and our own SQL all benefit. Statements without
 * parameters keep the simple protocol. Off with DB_PREPARED_STATEMENTS=false (e.g. behind a PgBouncer in
 * transaction mode older than 1.21, which cannot keep a connection's prepared statements).
 *
 * Relies on (pg 8.23.1; the canary is preparing-client.spec.ts): `Client.prototype.query` taking a
 * `{ name, text, values }` config and sending Parse for a name only the first time on a connection (pg keeps
 * `parsedStatements` per connection), parameterless text going as a simple query, and `Pool` building its
 * clients with the `Client` option. Names are per process (one text, one name), so a connection never sees one
 * name with two texts, which pg refuses.
 */
export class PreparingClient extends Client {
  // pg's overloads (text | config | submittable, values?, callback?) cannot be narrowed one by one
  override query(...args: unknown[]): never {
    const [text, values, callback] = args;
    const name = typeof text === 'string' && Array.isArray(values) && values.length > 0 ? nameOf(text) : undefined;
    const send = super.query.bind(this) as (...a: unknown[]) => never;
    if (!name) return send(...args);
    return typeof callback === 'function' ? send({ name, text, values }, callback) : send({ name, text, values });
  }
}
