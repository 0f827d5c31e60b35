import { Module } from '@nestjs/common';

import { EventsModule } from '../../events/events.module';
import { RunEnds } from '../run-ends.service';
import { DurableRuns } from './durable-runs.repository';
import { RunRecords } from './run-records.repository';

/**
 * The run rows: records written before a run starts and finished with its messages, and their durability side
 * (session lease, usage, idempotency keys, the reconciler's view), and the one wait for a run's end (RunEnds).
 * No dependency on the orchestrator, so both the orchestrator and the runs feature (queue, worker, job status)
 * can import it.
 */
@Module({ imports: [EventsModule], providers: [RunRecords, DurableRuns, RunEnds], exports: [RunRecords, DurableRuns, RunEnds] })
export class RunRecordsModule {}
