import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import {
  ended,
  finalStatus,
  hasEnded,
  holdsLeaseAt,
  isAwaitingApproval,
  isLeaseFree,
  isReleasableBy,
  isUnfinished,
  leaseFree,
  unfinished,
} from './run-rules';

/**
 * The lease and "ended" rules are written once (run-rules.ts): the rest of `src/` uses its fragments and predicates.
 * This scans every source file for the shapes a restatement takes, so one cannot come back unnoticed.
 */
const SRC = path.resolve(__dirname, '../..');

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'migrations' ? [] : sourcesUnder(full); // migrations are history
    return e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') ? [full] : [];
  });
}

/** the shapes of a restated rule, each with what it restates */
const RESTATEMENTS: Array<{ rule: string; pattern: RegExp }> = [
  { rule: 'a list of run statuses in SQL (finalStatus, live, ended, unfinished)', pattern: /\bstatus\s+(NOT\s+)?IN\s*\(\s*'/i },
  { rule: "an interrupted run's finished_at in SQL (ended, awaitingApproval)", pattern: /finished_at\s+IS\s+(NOT\s+)?NULL/i },
  {
    rule: 'the lease expiry in SQL (leaseFree, leaseHeld, holdsLease, extendLease, RELEASE_LEASE)',
    pattern: /lease_expires_at\s*(=|<|>|-|IS\b)/i,
  },
  { rule: 'a free or released lease in SQL (leaseFree, releasableBy)', pattern: /active_run_id\s+IS\s+(NOT\s+)?NULL/i },
  { rule: 'the lease expiry compared in TS (isLeaseFree, holdsLeaseAt)', pattern: /leaseExpiresAt\s*[<>]/ },
  { rule: 'an awaiting or ended interrupted run in TS (isAwaitingApproval, hasEnded)', pattern: /=== 'interrupted' && \w+\.finishedAt/ },
  { rule: 'the list of final statuses (FINAL_STATUSES)', pattern: /\[\s*'completed',\s*'failed',\s*'cancelled'\s*\]/ },
  { rule: 'a lease released in TS (isReleasableBy)', pattern: /activeRunId === \w+ \|\| \w+\.activeRunId === null/ },
];

/** where a rule's one definition lives, and the one leaf that may not import it */
const ALLOWED: Record<string, string> = {
  'runs/store/run-rules.ts': 'the rules themselves',
  'database/entities/run.entity.ts': 'FINAL_STATUSES and hasEnded, which run-rules.ts re-exports and builds its SQL from',
  'client/client.ts': 'the published HTTP client, a leaf that imports nothing from src/ (eslint.config.mjs `isolated`)',
};

function restatementsIn(text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const r of RESTATEMENTS) if (r.pattern.test(line)) found.push(`${i + 1}: ${r.rule}: ${line.trim()}`);
  });
  return found;
}

describe('run rules: written once', () => {
  it('no file of src/ restates the lease or "ended" rules', () => {
    const found = sourcesUnder(SRC)
      .filter((file) => !(path.relative(SRC, file).split(path.sep).join('/') in ALLOWED))
      .flatMap((file) => restatementsIn(readFileSync(file, 'utf8')).map((hit) => `${path.relative(SRC, file)}:${hit}`));
    expect(found).toEqual([]);
  });

  it('the scan recognises each shape of a restatement', () => {
    const samples = [
      `WHERE r.status IN ('queued', 'running')`,
      `AND status = 'interrupted' AND finished_at IS NOT NULL`,
      `s.lease_expires_at > now()`,
      `s.active_run_id IS NULL OR`,
      `s.leaseExpiresAt < this.now()`,
      `r.status === 'interrupted' && r.finishedAt === null`,
      `const FINAL = ['completed', 'failed', 'cancelled'];`,
      `s.activeRunId === runId || s.activeRunId === null`,
    ];
    for (const [i, sample] of samples.entries()) expect(restatementsIn(sample)).toEqual([expect.stringContaining(RESTATEMENTS[i].rule)]);
    expect(restatementsIn("WHERE ${unfinished('r')} AND ${leaseFree('s')}")).toEqual([]); // a use of the fragments is not
    expect(unfinished('r')).toContain("r.status = 'interrupted'");
  });
});

describe('run rules: SQL and predicates say the same', () => {
  const at = new Date('2026-01-01T00:00:00Z');
  const run = (status: string, finishedAt: Date | null) => ({ status, finishedAt }) as Parameters<typeof hasEnded>[0];

  it('an interrupted run has ended only when its graph interrupted it (finished_at set)', () => {
    expect(hasEnded(run('interrupted', at))).toBe(true);
    expect(isUnfinished(run('interrupted', null))).toBe(true);
    expect(isAwaitingApproval(run('interrupted', null))).toBe(true);
    for (const status of ['completed', 'failed', 'cancelled']) expect(hasEnded(run(status, at))).toBe(true);
    for (const status of ['queued', 'running']) expect(isUnfinished(run(status, null))).toBe(true);
    expect(finalStatus('r')).toBe(`r.status IN ('completed', 'failed', 'cancelled')`);
    expect(ended('r')).toContain(`r.status = 'interrupted' AND r.finished_at IS NOT NULL`);
  });

  it('a lease is free when none was taken or it lapsed; held by its run until it lapses', () => {
    const later = new Date(+at + 1000);
    const earlier = new Date(+at - 1000);
    expect(isLeaseFree({ activeRunId: null, leaseExpiresAt: null }, at)).toBe(true);
    expect(isLeaseFree({ activeRunId: 'a', leaseExpiresAt: earlier }, at)).toBe(true);
    expect(isLeaseFree({ activeRunId: 'a', leaseExpiresAt: later }, at)).toBe(false);
    expect(holdsLeaseAt({ activeRunId: 'a', leaseExpiresAt: later }, 'a', at)).toBe(true);
    expect(holdsLeaseAt({ activeRunId: 'a', leaseExpiresAt: later }, 'b', at)).toBe(false);
    expect(isReleasableBy({ activeRunId: 'b', leaseExpiresAt: later }, 'a')).toBe(false);
    expect(leaseFree('s')).toContain('s.lease_expires_at < now()');
  });
});
