import type { ThreadTaint } from '../../tools/thread-taint';

/** A row of `thread_taint` as the stores read it. */
export interface TaintRow {
  sources: string[];
  digest: Buffer | null;
  opaque: boolean;
  tainted_at: Date;
  run_id: string | null;
}

export function taintOfRow(r: TaintRow): ThreadTaint {
  return {
    sources: r.sources ?? [],
    digest: r.digest ? new Uint8Array(r.digest) : null,
    opaque: r.opaque,
    since: new Date(r.tainted_at),
    runId: r.run_id,
  };
}

const COLUMNS = ['sources', 'digest', 'opaque', 'tainted_at', 'run_id'] as const;

/** The select list of a joined `thread_taint` row (`alias`), its columns prefixed `taint_` beside the statement's own. */
export function taintColumns(alias: string): string {
  return COLUMNS.map((c) => `${alias}.${c} AS taint_${c}`).join(', ');
}

/** The taint record in a row selected with taintColumns; null when the thread has none. */
export function taintOf(row: Record<string, unknown>): ThreadTaint | null {
  const r = row as { [K in keyof TaintRow as `taint_${K}`]: TaintRow[K] | null };
  if (r.taint_tainted_at == null) return null;
  return taintOfRow({
    sources: r.taint_sources ?? [],
    digest: r.taint_digest,
    opaque: r.taint_opaque ?? false,
    tainted_at: r.taint_tainted_at,
    run_id: r.taint_run_id,
  });
}
