import { prefixTsQuery, searchTerms } from '../documents/search-query';
import { ownedFrom, type OwnedTable } from './knowledge-tables';

/** Reciprocal-rank fusion constant: a row's score is the sum of 1 / (RRF_K + its rank) over the rankings. */
export const RRF_K = 60;
/** Candidates taken from each text ranking (full-text, trigram) and from the vector ranking. */
const TEXT_CANDIDATES = 50;
const VECTOR_CANDIDATES = 20;

/** What is searched and how the rows come back: one spec per table (contract articles, document chunks). */
export interface HybridSearchSpec extends OwnedTable {
  /** Columns of `t` compared by trigram word similarity; the best weighted similarity ranks the row. */
  readonly trigram: ReadonlyArray<{ column: string; weight?: number }>;
  /** The returned columns, over `t` (the row) and `p` (its owner); `score` is added. */
  readonly select: string;
  /** Order among rows of equal score, e.g. `t.position`. */
  readonly tieBreak: string;
}

/** The query side: the question's full-text expression and terms, its vector (or null), the tenant and filters. */
export interface HybridSearchInput {
  tenantId: string;
  /** `to_tsquery('simple', …)` text, '' for none. */
  tsQuery: string;
  /** The search terms joined by spaces, compared by trigram similarity. */
  terms: string;
  /** A pgvector literal, or null when vectors are off. */
  vector: string | null;
  limit: number;
  /** Equality filters on columns of `t`, e.g. `{ contract_id: id }`. */
  where?: Record<string, unknown>;
}

/** A question's text side of the search: full-text expression and trigram terms ('' when it has none). */
export function textQuery(question: string): { tsQuery: string; terms: string } {
  const terms = searchTerms(question);
  return { tsQuery: prefixTsQuery(terms) ?? '', terms: terms.join(' ') };
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

function trigramScore(spec: HybridSearchSpec, param: string): string {
  const parts = spec.trigram.map(
    ({ column, weight }) => `word_similarity(${param}, t.${column})${weight && weight !== 1 ? ` * ${weight}` : ''}`,
  );
  return parts.length === 1 ? parts[0] : `greatest(${parts.join(', ')})`;
}

/**
 * One hybrid-search statement for any knowledge table: full-text rank, trigram word similarity and — with a
 * query vector — pgvector distance, each over the tenant's rows only, fused by reciprocal-rank fusion.
 * Ties keep `spec.tieBreak` order. Parameters: $1 tenant, $2 tsquery, $3 terms, $4 limit, then filters, then the vector.
 */
export function hybridSearchQuery(spec: HybridSearchSpec, input: HybridSearchInput): { sql: string; params: unknown[] } {
  const params: unknown[] = [input.tenantId, input.tsQuery, input.terms, input.limit];
  const filters = Object.entries(input.where ?? {}).map(([column, value]) => {
    if (!IDENTIFIER.test(column)) throw new Error(`hybrid search: bad filter column ${column}`);
    params.push(value);
    return ` AND t.${column} = $${params.length}`;
  });
  const scope = `${ownedFrom(spec)} WHERE p.tenant_id = $1${filters.join('')}`;
  const vectorParam = input.vector ? `$${params.push(input.vector)}` : null;
  const trigramMatch = spec.trigram.map(({ column }) => `$3 <% t.${column}`).join(' OR ');
  const rankings = [
    `fts AS (
       SELECT t.id, row_number() OVER (ORDER BY ts_rank(t.tsv, to_tsquery('simple', $2)) DESC) AS r
         ${scope} AND $2 <> '' AND t.tsv @@ to_tsquery('simple', $2) LIMIT ${TEXT_CANDIDATES})`,
    `tri AS (
       SELECT t.id, row_number() OVER (ORDER BY ${trigramScore(spec, '$3')} DESC) AS r
         ${scope} AND (${trigramMatch}) LIMIT ${TEXT_CANDIDATES})`,
  ];
  if (vectorParam) {
    rankings.push(`vec AS (
       SELECT t.id, row_number() OVER (ORDER BY t.embedding <=> ${vectorParam}::vector) AS r
         ${scope} AND t.embedding IS NOT NULL ORDER BY t.embedding <=> ${vectorParam}::vector LIMIT ${VECTOR_CANDIDATES})`);
  }
  const union = ['fts', 'tri', ...(vectorParam ? ['vec'] : [])].map((r) => `SELECT * FROM ${r}`).join(' UNION ALL ');
  const sql = `WITH ${rankings.join(',\n     ')},
     fused AS (SELECT id, sum(1.0 / (${RRF_K} + r)) AS score FROM (${union}) x GROUP BY id)
     SELECT ${spec.select}, f.score::float AS score
       FROM fused f JOIN ${spec.table} t ON t.id = f.id JOIN ${spec.owner} p ON p.id = t.${spec.ownerKey}
      WHERE p.tenant_id = $1
      ORDER BY f.score DESC, ${spec.tieBreak}
      LIMIT $4`;
  return { sql, params };
}
