import { Module } from '@nestjs/common';

import { EventsModule } from '../../events/events.module';
import { RunEnds } from '../run-ends.service';
import { PgRunLedger } from './pg-run-ledger';
import { PgRunStore } from './pg-run-store';
import { PgSessionStore } from './pg-session-store';
import { RetentionSweeper } from './retention-sweeper';
import { RunLedger } from './run-ledger';
import { RunStore } from './run-store';
import { SessionStore } from './session-store';
import { ThreadRetention } from './thread-retention';

/**
 * The run store: the only writer of the `runs` and `sessions` tables and of what hangs on a run (lease, usage,
 * tool ledger, idempotency keys, approvals, webhook delivery). Three ports (RunStore, SessionStore, RunLedger)
 * with their Postgres implementations; an in-memory one (in-memory-run-store.ts) backs the unit tests.
 * RunEnds is the one wait for a run's end, on the run event bus with a slow re-read of the store. RetentionSweeper
 * deletes expired threads (docs/retention.md) in every process that runs the store (API processes and workers).
 * No dependency on the orchestrator, so both the orchestrator and the dialects can import it; everyone else reads.
 */
@Module({
  imports: [EventsModule],
  providers: [
    RunEnds,
    ThreadRetention,
    RetentionSweeper,
    { provide: RunStore, useClass: PgRunStore },
    { provide: SessionStore, useClass: PgSessionStore },
    { provide: RunLedger, useClass: PgRunLedger },
  ],
  exports: [RunStore, SessionStore, RunLedger, RunEnds, ThreadRetention, RetentionSweeper],
})
export class RunStoreModule {}
