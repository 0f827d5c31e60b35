/**
 * The rows of a raw `DataSource.query` on Postgres: a SELECT yields the rows, an UPDATE/DELETE … RETURNING
 * yields `[rows, affectedCount]`.
 */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as T[];
  }
  return result as T[];
}

/** TypeORM's insert() types reject `Record<string, unknown>` jsonb columns; the entity itself is fine. */
export function insertable<T>(entity: T): import('typeorm/query-builder/QueryPartialEntity').QueryDeepPartialEntity<T> {
  return entity as never;
}
