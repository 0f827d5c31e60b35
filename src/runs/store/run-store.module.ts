import { Module } from '@nestjs/common';

import { RunLedger } from './run-ledger';
import { RunStore } from './run-store';
import { SessionStore } from './session-store';

/**
 * The run store: the only writer of the `runs` and `sessions` tables and of what hangs on a run (lease, usage,
 * tool ledger, idempotency keys, approvals, webhook delivery). No dependency on the orchestrator, so both the
 * orchestrator and the dialects can import it; everyone else reads.
 */
@Module({ providers: [RunStore, SessionStore, RunLedger], exports: [RunStore, SessionStore, RunLedger] })
export class RunStoreModule {}
