import { Module } from '@nestjs/common';

import { DurableRuns } from './durable-runs.repository';
import { RunRecords } from './run-records.repository';

/**
 * The run rows: records written before a run starts and finished with its messages, and their durability side
 * (session lease, usage, idempotency keys, the reconciler's view). No dependency on the orchestrator, so both
 * the orchestrator and the runs feature (queue, worker, job status) can import it.
 */
@Module({ providers: [RunRecords, DurableRuns], exports: [RunRecords, DurableRuns] })
export class RunRecordsModule {}
