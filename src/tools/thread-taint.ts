/**
 * Taint belongs to the thread: once untrusted text (retrieved passages, tool output, a sub-agent's or remote
 * agent's answer) entered a turn, every later turn of the thread and every fork of it (a run from an earlier
 * checkpoint, a copy of the thread) starts tainted, because the text — or an answer that quoted it — stays in the
 * history the model reads. The run store keeps this record beside the session; the tool guard reads it when a run
 * starts and adds to it, before the step that brought the text ends (so no checkpoint holds text the record lacks).
 * No client field clears it.
 */
export interface ThreadTaint {
  /** where the untrusted text came from: `knowledge base`, `tool web_search`, … */
  sources: string[];
  /** the digest of its character runs (untrusted-runs.ts `RunDigest`), or null when no text was seen */
  digest: Uint8Array | null;
  /** text entered that the guard did not see: network arguments fail closed in this thread */
  opaque: boolean;
  /** when the thread was first tainted, and by which run (set by the store) */
  since?: Date;
  runId?: string | null;
}

/** Writes the thread's taint (merged with what the store has): called by the guard, given by the run's driver. */
export type TaintRecorder = (taint: ThreadTaint) => Promise<void>;

/** What an operator sees of a thread's taint (GET /v1/sessions/{id}). */
export interface ThreadTaintView {
  sources: string[];
  since: string | null;
  run_id: string | null;
}

export function taintView(taint: ThreadTaint | null): ThreadTaintView | null {
  if (!taint) return null;
  return { sources: taint.sources, since: taint.since?.toISOString() ?? null, run_id: taint.runId ?? null };
}
