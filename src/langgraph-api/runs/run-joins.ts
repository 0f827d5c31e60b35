import { Injectable } from '@nestjs/common';
import { z } from 'zod';

import type { RunEntity } from '../../database/entities';
import { RunStore } from '../../runs/store/run-store';
import { ThreadNotFoundException } from '../errors';
import { ThreadsRepository } from '../threads/threads.repository';
import { ThreadsService } from '../threads/threads.service';
import { LgRunsRepository } from './lg-runs.repository';
import { LangGraphRunsService } from './lg-runs.service';
import type { ApiStreamMode } from './run-schemas';
import { type SseEvent, toApiRun } from './run-wire';

/** What a thread's stream carries (the SDK's `ThreadStreamMode`). */
export const THREAD_STREAM_MODES = ['run_modes', 'lifecycle', 'state_update'] as const;
export type ThreadStreamMode = (typeof THREAD_STREAM_MODES)[number];

/** A query parameter given once or repeated, as a list. */
const listOf = (v: unknown) => (v === undefined || v === '' ? undefined : Array.isArray(v) ? v : [v]);

/** `GET /threads/{id}/stream`'s query: `stream_mode` once or repeated (default `run_modes`). */
export const ThreadStreamQuery = z.object({
  stream_mode: z.preprocess(listOf, z.array(z.enum(THREAD_STREAM_MODES)).min(1).default(['run_modes'])),
});

/** How many unfinished runs of a thread a join looks at (a thread runs one at a time; the rest are queued). */
const UNFINISHED_CAP = 100;

/** The stream modes a run streams for its own request (its join streams the same events, with the same ids). */
export function requestedModesOf(run: RunEntity): ApiStreamMode[] | null {
  return ((run.input.lg as { stream_mode?: ApiStreamMode[] } | undefined)?.stream_mode ?? null) || null;
}

/** `Last-Event-ID` of a thread's stream: `<run id>:<event id in the run's stream>` or `<run id>:end`. */
function resumePoint(lastEventId: string | undefined): { runId: string; after: string } | null {
  const at = lastEventId?.lastIndexOf(':') ?? -1;
  return at > 0 ? { runId: lastEventId!.slice(0, at), after: lastEventId!.slice(at + 1) } : null;
}

/**
 * Joining streams that are not a run of a named thread: a stateless run's (`GET /runs/{run_id}/stream`) and a
 * thread's (`GET /threads/{id}/stream`). Both are reads of the run's thread (`threads:read` of the one policy);
 * joining never cancels a run (the controller does, for `cancel_on_disconnect`, on a run the caller may see).
 */
@Injectable()
export class RunJoins {
  constructor(
    private readonly runs: LangGraphRunsService,
    private readonly records: RunStore,
    private readonly repo: LgRunsRepository,
    private readonly threads: ThreadsRepository,
    private readonly threadsService: ThreadsService,
  ) {}

  /**
   * The run of the tenant with this id if the caller may read its thread; null when it is unknown or hidden (a
   * stateless run's stream then has no events, as LangGraph Server answers an unknown run: nothing told).
   */
  async visibleRun(tenantId: string, runId: string): Promise<RunEntity | null> {
    const run = await this.records.getForTenant(runId, tenantId, 'run').catch(() => null);
    if (!run || !run.sessionId) return null;
    return (await this.runs.hiddenByAuth(tenantId, run.sessionId)) ? null : run;
  }

  /** A run's events as its own stream has them, after `lastEventId` when given. */
  runStream(
    run: RunEntity,
    opts: { tenantId: string; lastEventId?: string; signal: AbortSignal; only?: string[] },
  ): AsyncIterable<SseEvent> {
    return this.runs.stream(run.id, requestedModesOf(run), { ...opts, threadId: run.sessionId });
  }

  /** 404 unless the thread exists and the caller may read it (before a thread's stream starts). */
  async checkThread(tenantId: string, threadId: string): Promise<void> {
    const filters = await this.threadsService.authorize('read', { thread_id: threadId });
    if (!(await this.threads.get(tenantId, threadId, filters))) throw new ThreadNotFoundException(threadId);
  }

  /**
   * A thread's stream: its unfinished runs one after the other (the running one, then the queued ones, oldest
   * first), until none is left. `run_modes`: each run's events as its own stream has them, then `run_done`
   * `{ run_id, status }`; `lifecycle`: each run's `metadata` (started) and `run_done`; `state_update`: the
   * `values` events. Ids are `<run id>:<id in the run's stream>` (`<run id>:end` for `run_done`), so a client
   * resuming with `Last-Event-ID` gets what follows it, none repeated.
   */
  async *threadStream(
    tenantId: string,
    threadId: string,
    modes: ThreadStreamMode[],
    opts: { lastEventId?: string; signal: AbortSignal },
  ): AsyncGenerator<SseEvent> {
    const wanted = new Set(modes);
    const resume = resumePoint(opts.lastEventId);
    const seen = new Set<string>(resume?.after === 'end' ? [resume.runId] : []);
    for (let run = await this.nextRun(tenantId, threadId, seen); run && !opts.signal.aborted;) {
      seen.add(run.id);
      const lastEventId = resume?.runId === run.id ? resume.after : undefined;
      for await (const e of this.runStream(run, { tenantId, lastEventId, signal: opts.signal })) {
        if (carries(wanted, e.event)) yield { ...e, id: `${run.id}:${e.id}` };
      }
      if (opts.signal.aborted) return;
      if (wanted.has('run_modes') || wanted.has('lifecycle')) {
        const ended = await this.runs.ended(run.id, opts.signal);
        yield { id: `${run.id}:end`, event: 'run_done', data: { run_id: run.id, status: toApiRun(ended).status } };
      }
      run = await this.nextRun(tenantId, threadId, seen);
    }
  }

  /** The oldest unfinished run of the thread not streamed yet. */
  private async nextRun(tenantId: string, threadId: string, seen: Set<string>): Promise<RunEntity | null> {
    const ids = await this.repo.list(tenantId, threadId, ['running', 'queued'], UNFINISHED_CAP, 0); // newest first
    const next = ids.reverse().find((id) => !seen.has(id));
    return next ? this.records.getForTenant(next, tenantId, 'run').catch(() => null) : null;
  }
}

/** Whether a thread's stream in these modes carries a run's event. */
function carries(wanted: Set<ThreadStreamMode>, event: string): boolean {
  if (wanted.has('run_modes')) return true;
  if (wanted.has('lifecycle') && event === 'metadata') return true;
  return wanted.has('state_update') && event.split('|')[0] === 'values';
}
