import { Injectable, Logger } from '@nestjs/common';

import type { ChatResult } from '../core/chat-result';
import type { RunEntity } from '../database/entities';
import { AgentOrchestrator, type ExecuteOptions } from '../orchestrator/agent-orchestrator.service';
import type { ProgressEvent } from '../orchestrator/graph-runner.service';
import { RunRecords } from './records/run-records.repository';
import { RunCancellation } from './run-cancellation.service';

/**
 * A run's progress row is written at most this often, the first time this long after it starts: a statement
 * per write on the run's connection pool, and a short run (two model calls) ends before anyone polls it.
 * Followers of the run get every step from the run event bus instead (`GET /v1/jobs/{id}/events`).
 */
const PROGRESS_WRITE_INTERVAL_MS = 1000;

/** Executes a queued run (the thin body of every job): cancellation signal, progress, the orchestrator. */
@Injectable()
export class RunExecutor {
  private readonly logger = new Logger(RunExecutor.name);

  constructor(
    private readonly orchestrator: AgentOrchestrator,
    private readonly runs: RunRecords,
    private readonly cancellation: RunCancellation,
  ) {}

  async execute(
    runId: string,
    opts: Pick<ExecuteOptions, 'leaseWait' | 'handBack' | 'startedAtAccept' | 'newThread'> & {
      onProgress?: (e: ProgressEvent) => void;
      /** the row just accepted, when the caller has it (saves reading it back) */
      accepted?: RunEntity;
    } = {},
  ): Promise<ChatResult> {
    const { onProgress } = opts;
    const signal = this.cancellation.register(runId);
    // progress is written for runs that last: the first write comes after PROGRESS_WRITE_INTERVAL_MS
    let lastWrite = Date.now();
    try {
      return await this.orchestrator.execute(
        runId,
        {
          signal,
          leaseWait: opts.leaseWait,
          handBack: opts.handBack,
          startedAtAccept: opts.startedAtAccept,
          newThread: opts.newThread,
          onProgress: (e) => {
            onProgress?.(e);
            const now = Date.now();
            if (now - lastWrite < PROGRESS_WRITE_INTERVAL_MS) return;
            lastWrite = now;
            this.runs
              .setProgress(runId, { node: e.node, step: e.step, at: new Date(now).toISOString() })
              .catch((err: Error) => this.logger.warn({ msg: 'progress not recorded', run_id: runId, err: err.message }));
          },
        },
        opts.accepted,
      );
    } finally {
      this.cancellation.unregister(runId);
    }
  }
}
