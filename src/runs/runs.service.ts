import { Injectable, Logger } from '@nestjs/common';

import { RunAlreadyFinishedException } from '../common/domain.exception';
import { FINAL_STATUSES as FINAL, type RunEntity } from '../database/entities';
import { AgentOrchestrator, type TurnRequest } from '../orchestrator/agent-orchestrator.service';
import { pendingCallView } from '../tools/tool-approval';
import { DurableRuns } from './records/durable-runs.repository';
import { RunRecords } from './records/run-records.repository';
import { RunCancellation } from './run-cancellation.service';
import { RunQueue } from './run-queue';

export interface JobView {
  job_id: string;
  session_id: string;
  agent: string;
  status: RunEntity['status'];
  progress: Record<string, unknown> | null;
  result?: Record<string, unknown>;
  error?: { code: string; message: string };
  /** status `interrupted`: the tool call waiting for POST /v1/jobs/{id}/approve | reject */
  pending_approval?: ReturnType<typeof pendingCallView>;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** Queued runs: submit, read, cancel. */
@Injectable()
export class RunsService {
  private readonly logger = new Logger(RunsService.name);

  constructor(
    private readonly orchestrator: AgentOrchestrator,
    private readonly records: RunRecords,
    private readonly queue: RunQueue,
    private readonly cancellation: RunCancellation,
    private readonly durable: DurableRuns,
  ) {}

  /** The run row is written first; if the queue then refuses it, the run ends as failed and the caller gets 503. */
  async submit(req: TurnRequest): Promise<RunEntity> {
    const run = await this.orchestrator.accept(req, 'async');
    if (run.status !== 'queued') return run; // an idempotent repeat of a run that has started or ended
    try {
      await this.queue.enqueue(run.id);
    } catch (err) {
      const error = { code: 'QUEUE_UNAVAILABLE', message: (err as Error).message };
      await this.records
        .finish(run, {
          status: 'failed',
          result: null,
          error,
          trace: null,
          usage: { calls: 0, promptTokens: 0, completionTokens: 0 },
          messages: null,
        })
        .catch((e: Error) => this.logger.error({ msg: 'could not record the refused run', run_id: run.id, err: e.message }));
      // a retry with the same Idempotency-Key gets a new chance instead of this refusal
      await this.durable.releaseIdempotencyKey(run.id).catch(() => undefined);
      throw err;
    }
    return run;
  }

  async get(id: string): Promise<JobView> {
    return toJobView(await this.records.get(id));
  }

  /**
   * The job's state each time it changes, until it ends (works across processes: it reads the run row).
   * The last value is the final JobView.
   */
  async *watch(id: string, signal: AbortSignal, everyMs = 200): AsyncGenerator<JobView> {
    let last = '';
    while (!signal.aborted) {
      const view = await this.get(id);
      const key = JSON.stringify([view.status, view.progress]);
      if (key !== last) {
        last = key;
        yield view;
      }
      if (FINAL.includes(view.status)) return;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }

  async cancel(id: string): Promise<JobView> {
    const { outcome, status } = await this.records.requestCancel(id);
    if (outcome === 'cancelled') await this.queue.remove(id);
    else if (outcome === 'flagged') await this.cancellation.cancel(id);
    else throw new RunAlreadyFinishedException(id, status);
    return this.get(id);
  }
}

export function toJobView(run: RunEntity): JobView {
  return {
    job_id: run.id,
    session_id: run.sessionId,
    agent: run.agent,
    status: run.status,
    progress: run.progress,
    ...(run.result ? { result: run.result } : {}),
    ...(run.error ? { error: run.error } : {}),
    ...(run.status === 'interrupted' && run.pendingApproval ? { pending_approval: pendingCallView(run.pendingApproval) } : {}),
    created_at: run.createdAt.toISOString(),
    started_at: run.startedAt?.toISOString() ?? null,
    finished_at: run.finishedAt?.toISOString() ?? null,
  };
}
