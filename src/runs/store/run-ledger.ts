import type { ToolLedger } from '../../core/tool-ledger';
import type { AttemptCallRecord, RunUsage } from '../persistent-usage';

export interface UsageTotals {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

/**
 * An `Idempotency-Key` as it is unique: per tenant and per principal, so another user or API key of the tenant
 * sending the same key gets a run of its own, never the first caller's. `principal`: `user:<id>` (a token's user or
 * a custom-auth identity), `key:<id>` (an API key's id), '' when the request had neither (open mode, embedding).
 */
export interface IdempotencyKey {
  tenantId: string;
  principal: string;
  key: string;
}

/**
 * What hangs on a run besides its state, in raw SQL: usage written as it accrues (so a crashed attempt's calls
 * still count), idempotency keys, the tool ledger, and the delivery of its webhook. Part of the run store.
 */
export abstract class RunLedger {
  /** `attempt` 1 reads nothing back: no earlier attempt can have recorded a call (see PgToolLedger). */
  abstract toolLedger(runId: string, attempt: number): ToolLedger;

  /** Usage so far (all attempts): written after every model call, so a crashed attempt's calls still count. */
  abstract saveUsage(runId: string, u: RunUsage): Promise<void>;

  /** The model calls earlier attempts of a run recorded. */
  abstract modelCalls(runId: string): Promise<AttemptCallRecord[]>;

  /** The run that holds the key in its tenant and principal's scope. */
  abstract findByIdempotencyKey(key: IdempotencyKey): Promise<{ id: string; requestHash: string | null } | null>;

  /** False when another run of the same tenant and principal took the key first (unique index). */
  abstract claimIdempotencyKey(runId: string, key: IdempotencyKey, requestHash: string): Promise<boolean>;

  abstract releaseIdempotencyKey(runId: string): Promise<void>;

  /** Ended runs whose webhook is due (a missed end, a retry), at most 50. */
  abstract dueWebhooks(): Promise<string[]>;

  /** The attempt number the caller now owns for `claimMs` (null: not due, or another process has it). */
  abstract claimWebhook(runId: string, claimMs: number): Promise<number | null>;

  /** Records an attempt's outcome: `sent`, `gave_up` after the last attempt, or a retry after the backoff. */
  abstract settleWebhook(runId: string, attempt: number, ok: boolean): Promise<'sent' | 'gave_up' | null>;
}
