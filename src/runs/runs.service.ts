import { Injectable, Logger, Optional } from '@nestjs/common';

import { RunAlreadyFinishedException } from '../core/errors';
import { FINAL_STATUSES as FINAL, type RunEntity } from '../database/entities';
import { RunEventBus } from '../events/run-event-bus';
import { AgentOrchestrator, type KnownSession, type TurnRequest } from '../orchestrator/agent-orchestrator.service';
import { pendingCallView } from '../tools/tool-approval';
import { LocalRuns } from './local-runs.service';
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

/** One SSE event of `GET /v1/jobs/{id}/events`; `id` is the run event bus id it comes from. */
export interface JobEvent {
  event: 'status' | 'result';
  data: unknown;
  id?: string;
}

/** How often a follower of a job checks the stored run for an end the bus did not report (and waits as long again). */
const WATCHDOG_MS = 2000;
const WATCH_FALLBACK_MS = 500;

/** The job status a ChatResult stands for (the stored run's status is preferred). */
function statusOf(result: unknown): RunEntity['status'] {
  const code = (result as { error?: { code?: string } | null })?.error?.code;
  return code === 'CANCELLED' ? 'cancelled' : code ? 'failed' : 'completed';
}

/** Queued runs: submit, read, cancel, follow. */
@Injectable()
export class RunsService {
  private readonly logger = new Logger(RunsService.name);

  constructor(
    private readonly orchestrator: AgentOrchestrator,
    private readonly records: RunRecords,
    private readonly queue: RunQueue,
    private readonly cancellation: RunCancellation,
    private readonly durable: DurableRuns,
    private readonly events: RunEventBus,
    @Optional() private readonly local?: LocalRuns,
  ) {}

  /**
   * The run row is written first; if the queue then refuses it, the run ends as failed and the caller gets 503.
   * `here`: the caller waits for the run, so this process executes it at once when it can (LocalRuns), queued
   * otherwise.
   */
  async submit(req: TurnRequest, opts: { here?: boolean; session?: KnownSession } = {}): Promise<RunEntity> {
    // a run executed here at once is accepted already started (its row and its lease in one statement)
    const start = !!opts.here && !req.idempotency_key && !req.start_at && !!this.local?.hasRoom();
    const run = await this.orchestrator.accept(req, 'async', { start, session: opts.session });
    if (start && run.status === 'running') {
      this.local!.start(run, { newThread: opts.session?.noCheckpoint });
      return run;
    }
    if (run.status !== 'queued') return run; // an idempotent repeat of a run that has started or ended
    if (opts.here && this.local?.start(run)) return run;
    try {
      const delayMs = run.input.start_at ? Date.parse(run.input.start_at) - Date.now() : 0;
      await this.queue.enqueue(run.id, delayMs > 0 ? { delayMs } : undefined);
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

  /** This process's execution of the run (started by `submit` with `here`), until it is over; null if none. */
  localExecution(runId: string): Promise<void> | null {
    return this.local?.execution(runId) ?? null;
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

  /**
   * A job's SSE events, driven by the run event bus (works across processes): `status` `{ job_id, status,
   * progress }` on every change, then `result` (the ChatResult) when it ends. Events derived from a bus event
   * carry its id; with `lastEventId` the stream resumes after it (replay window, then live). A run that has
   * ended (or whose window has expired) is answered from its stored row.
   */
  async *follow(id: string, opts: { lastEventId?: string; signal: AbortSignal }): AsyncGenerator<JobEvent> {
    const { signal } = opts;
    let last = '';
    const status = (view: Pick<JobView, 'job_id' | 'status' | 'progress'>, eventId?: string): JobEvent[] => {
      const key = JSON.stringify([view.status, view.progress]);
      if (key === last) return [];
      last = key;
      return [{ event: 'status', data: { job_id: view.job_id, status: view.status, progress: view.progress }, id: eventId }];
    };
    let progress: Record<string, unknown> | null = null;
    if (!opts.lastEventId) {
      const view = await this.get(id);
      progress = view.progress;
      yield* status(view);
      if (FINAL.includes(view.status)) {
        if (view.result) yield { event: 'result', data: view.result };
        return;
      }
    }
    const sub = new AbortController();
    const abort = () => sub.abort();
    signal.addEventListener('abort', abort, { once: true });
    const watchdog = this.endedWatchdog(id, sub);
    try {
      for await (const e of this.events.subscribe(id, { lastEventId: opts.lastEventId, signal: sub.signal })) {
        if (e.event === 'metadata') yield* status({ job_id: id, status: 'running', progress }, e.id);
        else if (e.event === 'progress') {
          const { node, step } = e.data as { node: string; step: number };
          progress = { node, step, at: new Date().toISOString() };
          yield* status({ job_id: id, status: 'running', progress }, e.id);
        } else if (e.event === 'interrupt') yield* status(await this.get(id), e.id);
        else if (e.event === 'result') {
          const view = await this.get(id); // stored before the result was published
          const final = FINAL.includes(view.status) ? view.status : statusOf(e.data);
          yield* status({ job_id: id, status: final, progress: progress ?? view.progress });
          yield { event: 'result', data: e.data, id: e.id };
          return;
        }
      }
    } finally {
      signal.removeEventListener('abort', abort);
      sub.abort();
      await watchdog;
    }
    if (signal.aborted) return;
    // no result on the bus (window expired, ended without running, events lost): the stored run decides
    let view: JobView | undefined;
    for await (const v of this.watch(id, signal, WATCH_FALLBACK_MS)) {
      view = v;
      yield* status(v);
    }
    if (view?.result) yield { event: 'result', data: view.result };
  }

  /** Ends a subscription whose run has ended in the database but whose result never came over the bus. */
  private async endedWatchdog(id: string, sub: AbortController): Promise<void> {
    const sleep = (ms: number) =>
      new Promise<void>((resolve) => {
        const t = setTimeout(resolve, ms);
        sub.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
      });
    while (!sub.signal.aborted) {
      await sleep(WATCHDOG_MS);
      const run = await this.records.get(id).catch(() => null);
      if (sub.signal.aborted) return;
      if (!run || FINAL.includes(run.status)) {
        await sleep(WATCHDOG_MS); // the result may be on its way through the bus
        sub.abort();
      }
    }
  }

  async cancel(id: string): Promise<JobView> {
    const { outcome, status } = await this.records.requestCancel(id);
    if (outcome === 'cancelled') {
      await this.queue.remove(id);
      this.events.end(id); // it never started: its followers read the stored run
    } else if (outcome === 'flagged') await this.cancellation.cancel(id);
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
