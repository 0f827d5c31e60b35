import { Injectable, Logger } from '@nestjs/common';

import { threadIdOf } from '../auth/tenant';
import type { ChatResult } from '../core/chat-result';
import { RunAlreadyFinishedException, RunNotFoundException, SessionBusyException } from '../core/errors';
import { FINAL_STATUSES as FINAL, hasEnded, type RunEntity } from '../database/entities';
import { type RunEvent, RunEventBus } from '../events/run-event-bus';
import { RunCancellation } from '../runs/run-cancellation.service';
import { RunEndNotSeen, RunEnds } from '../runs/run-ends.service';
import { RunQueue } from '../runs/run-queue';
import { RunLedger } from '../runs/store/run-ledger';
import { RunStore, type StoppedRun } from '../runs/store/run-store';
import { pendingCallView } from '../tools/tool-approval';
import { type KnownSession, RunAdmission, type TurnRequest } from './run-admission.service';
import { RunDriver } from './run-driver.service';
import { handleOf } from './run-handle';
import { RunOutcomes } from './run-outcomes.service';

export interface JobView {
  job_id: string;
  session_id: string;
  agent: string;
  status: RunEntity['status'];
  progress: Record<string, unknown> | null;
  result?: ChatResult;
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

/** How long multitask `interrupt` / `rollback` wait for a stopped run to end before going on. */
const STOP_TIMEOUT_MS = 30_000;

/** A follower whose run has ended in the database waits this long for the result to come over the bus. */
const RESULT_GRACE_MS = 2000;

/** Resolves after `ms` or when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}

/** The job status a ChatResult stands for (the stored run's status is preferred). */
function statusOf(result: unknown): RunEntity['status'] {
  const code = (result as { error?: { code?: string } | null })?.error?.code;
  return code === 'CANCELLED' ? 'cancelled' : code ? 'failed' : 'completed';
}

/**
 * The run service, what every dialect calls (REST v1, the LangGraph API, the embed facade): `chat` (a turn
 * answered in the request), `submit` (queued, or executed here when the caller waits), read, follow, cancel.
 * Every run then goes through the one run driver.
 */
@Injectable()
export class RunsService {
  private readonly logger = new Logger(RunsService.name);

  constructor(
    private readonly admission: RunAdmission,
    private readonly outcomes: RunOutcomes,
    private readonly records: RunStore,
    private readonly queue: RunQueue,
    private readonly cancellation: RunCancellation,
    private readonly ledger: RunLedger,
    private readonly events: RunEventBus,
    private readonly driver: RunDriver,
    private readonly ends: RunEnds,
  ) {}

  /** A sync turn: accepted (and, when its session is free, started in the same statement), then run in the request. */
  async chat(req: TurnRequest): Promise<ChatResult> {
    return (await this.startTurn(req)).done;
  }

  /**
   * A sync turn, accepted and set going in the request (`chat`, and `POST /v1/chat/stream`, which follows its
   * events meanwhile): `done` settles with its ChatResult. An idempotent repeat (`repeat`) is not executed
   * again: `done` is the first run's result.
   */
  async startTurn(req: TurnRequest): Promise<{ run: RunEntity; done: Promise<ChatResult>; repeat: boolean }> {
    const accepted = await this.admission.acceptTurn(req);
    if (accepted.repeat) return { run: accepted.repeat, done: this.outcomes.resultOf(accepted.repeat.id), repeat: true };
    const { handle } = accepted;
    const run = 'accepted' in handle ? handle.accepted : handle.leased;
    return { run, done: this.driver.runInRequest(handle), repeat: false };
  }

  /**
   * The run row is written first; if the queue then refuses it, the run ends as failed and the caller gets 503.
   * `here`: the caller waits for the run, so this process executes it at once when it can (RunDriver.startHere), queued
   * otherwise.
   */
  async submit(req: TurnRequest, opts: { here?: boolean; session?: KnownSession } = {}): Promise<RunEntity> {
    const superseding = !!req.session_id && (req.multitask === 'interrupt' || req.multitask === 'rollback');
    // a run executed here at once is accepted already started (its row and its lease in one statement)
    const start = !superseding && !!opts.here && !req.idempotency_key && !req.start_at && this.driver.hasRoom();
    const stopped: StoppedRun[] = [];
    const run = await this.admission.accept(req, 'async', { start, session: opts.session, stopped });
    if (stopped.length) await this.settleStopped(run, stopped, req.multitask === 'rollback');
    if (start && run.status === 'running') {
      this.driver.startHere(handleOf(run, opts.session?.noCheckpoint ? 'new' : 'existing'));
      return run;
    }
    if (run.status !== 'queued') return run; // an idempotent repeat of a run that has started or ended
    if (opts.here && this.driver.startHere({ accepted: run })) return run;
    try {
      const delayMs = run.input.start_at ? Date.parse(run.input.start_at) - Date.now() : 0;
      await this.queue.enqueue(run.id, delayMs > 0 ? { delayMs } : undefined);
    } catch (err) {
      // ended through the one end path (stored, then `result` and `end` published): its followers wake at once
      await this.outcomes
        .refuse(run, 'QUEUE_UNAVAILABLE', (err as Error).message)
        .catch((e: Error) => this.logger.error({ msg: 'could not record the refused run', run_id: run.id, err: e.message }));
      // a retry with the same Idempotency-Key gets a new chance instead of this refusal
      await this.ledger.releaseIdempotencyKey(run.id).catch(() => undefined);
      throw err;
    }
    return run;
  }

  /**
   * Multitask `interrupt` / `rollback`, after the acceptance stopped the session's runs in the transaction that
   * wrote the new one (RunStore.createSuperseding): their workers are told, their ends awaited (the new run would
   * not start before anyway: it is behind them in line), and `rollback` deletes them with the checkpoints they
   * wrote — before the new run is handed to a worker, so it starts on the rolled-back thread.
   */
  private async settleStopped(run: RunEntity, stopped: StoppedRun[], rollback: boolean): Promise<void> {
    for (const s of stopped) await this.tellStopped(s.id, s.outcome);
    for (const s of stopped) {
      const ended = await this.awaitEnd(s.id, { timeoutMs: STOP_TIMEOUT_MS }).catch((e: unknown) => {
        if (e instanceof RunNotFoundException) return null;
        throw e;
      });
      // rollback deletes a run that has not ended in time anyway (docs/security/multitask-and-idempotency.md)
      if (rollback && ended) await this.records.deleteRun(run.tenantId, threadIdOf(run.tenantId, run.sessionId), s.id);
    }
  }

  /** What follows a cancel request: a run that never started is dropped from the queue and its followers told; a running one's worker is. */
  private async tellStopped(id: string, outcome: 'cancelled' | 'flagged'): Promise<void> {
    if (outcome === 'cancelled') {
      await this.queue.cancel(id);
      this.events.end(id); // it never started: its followers read the stored run
    } else await this.cancellation.cancel(id);
  }

  /**
   * Wait: the run's row once it has ended (RunEnds.awaitEnd: a run executed by this process is read when its
   * execution is over, any other is woken by its `end` on the event bus, with a slow re-read as the safety net).
   * When `signal` aborts or `timeoutMs` passes first, the row as it is then.
   */
  async awaitEnd(runId: string, opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<RunEntity> {
    const here = this.driver.execution(runId) ?? undefined;
    try {
      return await this.ends.awaitEnd(runId, { ...opts, here, what: 'run' });
    } catch (err) {
      if (err instanceof RunEndNotSeen) return err.run;
      throw err;
    }
  }

  /**
   * Cancel with an action: `interrupt` — the run is stopped (it ends `cancelled`), `rollback` — once stopped it is
   * deleted with the checkpoints it wrote. A run that has already ended is left as it is. `wait`: returns once the
   * run has ended (rollback always waits, at most STOP_TIMEOUT_MS).
   */
  async stop(run: RunEntity, action: 'interrupt' | 'rollback', wait = false): Promise<void> {
    if (!hasEnded(run)) {
      await this.cancel(run.id).catch((e: unknown) => {
        if (!(e instanceof RunAlreadyFinishedException)) throw e;
      });
    }
    if (action === 'rollback') {
      await this.awaitEnd(run.id, { signal: AbortSignal.timeout(STOP_TIMEOUT_MS) });
      await this.deleteEnded(run, true);
    } else if (wait) await this.awaitEnd(run.id);
  }

  /** Deletes an ended run and the checkpoints it wrote; SESSION_BUSY while it has not ended (unless `stopped`: it was just). */
  async deleteEnded(run: RunEntity, stopped = false): Promise<void> {
    if (!stopped && !hasEnded(run)) throw new SessionBusyException(run.sessionId);
    await this.records.deleteRun(run.tenantId, threadIdOf(run.tenantId, run.sessionId), run.id);
  }

  /** Cancels a run whose follower went away (a stream's `on_disconnect: cancel`), unless it has ended; never throws. */
  async cancelQuietly(runId: string): Promise<void> {
    const run = await this.records.get(runId, 'run').catch(() => null);
    if (run && !hasEnded(run)) await this.cancel(runId).catch(() => undefined);
  }

  /** A stateless run's session goes once the run has ended and its readers are done (`readersDone`: the dialect's event). */
  async deleteSessionWhenEnded(tenantId: string, sessionId: string, runId: string, readersDone?: () => Promise<void>): Promise<void> {
    try {
      await this.awaitEnd(runId);
      await readersDone?.();
      await this.admission.deleteSession(sessionId, tenantId);
    } catch (err) {
      this.logger.warn({ msg: 'temporary session not deleted', session_id: sessionId, run_id: runId, err: (err as Error).message });
    }
  }

  /**
   * Join a run this process executes, followed to its end from its events: its final values when it completed
   * (the last `values` chunk is the final state; its `result` tells how it ended), without reading the run and
   * its thread back. Null when it did not run here, did not complete, or published no `values`.
   */
  async completedHere(runId: string, signal?: AbortSignal): Promise<{ values: unknown } | null> {
    const here = this.driver.execution(runId);
    if (!here) return null;
    let values: unknown;
    let result: { error?: unknown; metadata?: { interrupted?: unknown } } | undefined;
    for await (const e of this.events.subscribe(runId, { signal, here })) {
      if (e.event === 'values') values = e.data;
      else if (e.event === 'result') result = (e.data ?? {}) as typeof result;
    }
    return result && !result.error && !result.metadata?.interrupted && values !== undefined && !signal?.aborted ? { values } : null;
  }

  /** The run's events from the run event bus (after `lastEventId`); a run executed here is followed from its publisher. */
  runEvents(runId: string, opts: { signal?: AbortSignal; lastEventId?: string }): AsyncIterable<RunEvent> {
    return this.events.subscribe(runId, { ...opts, here: this.driver.execution(runId) ?? undefined });
  }

  /** This process's execution of the run (started by `submit` with `here`), until it is over; null if none. */
  localExecution(runId: string): Promise<void> | null {
    return this.driver.execution(runId);
  }

  async get(id: string): Promise<JobView> {
    return toJobView(await this.records.get(id));
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
    let subscriptionOver!: () => void;
    // the stored run decides when the bus does not report the end (events lost, window expired, ended without
    // running): awaitEnd, woken when this subscription is over and re-reading the row meanwhile
    const ended = this.ends.awaitEnd(id, { signal: sub.signal, followed: new Promise<void>((r) => (subscriptionOver = r)) });
    // ended in the database but no result over the bus yet: it may be on its way, then the subscription stops
    const stopWhenEnded = ended
      .then(() => pause(RESULT_GRACE_MS, sub.signal))
      .catch(() => undefined)
      .finally(() => sub.abort());
    let run: RunEntity | undefined;
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
      subscriptionOver();
      if (signal.aborted) return;
      run = await ended; // no result on the bus: the stored run decides
    } catch (err) {
      if (err instanceof RunEndNotSeen) return; // the client went away
      throw err;
    } finally {
      subscriptionOver();
      signal.removeEventListener('abort', abort);
      sub.abort();
      await stopWhenEnded;
    }
    const view = toJobView(run);
    yield* status(view);
    if (view.result) yield { event: 'result', data: view.result };
  }

  async cancel(id: string): Promise<JobView> {
    const { outcome, status } = await this.records.requestCancel(id);
    if (outcome === 'ended') throw new RunAlreadyFinishedException(id, status);
    await this.tellStopped(id, outcome);
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
