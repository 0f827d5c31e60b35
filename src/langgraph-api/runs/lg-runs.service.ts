import { randomUUID } from 'node:crypto';

import { Injectable, Logger } from '@nestjs/common';

import { threadIdOf } from '../../auth/tenant';
import { RunAlreadyFinishedException, RunNotFoundException, SessionBusyException, SessionNotFoundException } from '../../core/errors';
import type { RunEntity } from '../../database/entities';
import { RunEventBus } from '../../events/run-event-bus';
import { type KnownSession, RunAdmission, type TurnRequest } from '../../orchestrator/run-admission.service';
import { RunsService } from '../../orchestrator/runs.service';
import { RunEndNotSeen, RunEnds } from '../../runs/run-ends.service';
import { RunStore } from '../../runs/store/run-store';
import { SessionStore } from '../../runs/store/session-store';
import { AssistantsService } from '../assistants/assistants.service';
import { InvalidRequestException, ThreadBusyException, ThreadNotFoundException } from '../errors';
import { ThreadsRepository } from '../threads/threads.repository';
import { ThreadsService } from '../threads/threads.service';
import { LgRunsRepository } from './lg-runs.repository';
import { RunRequestChecks } from './run-request-checks';
import { type ApiStreamMode, graphOptionsOf, type RunCancelManyBody, type RunCreateBody, type RunListQueryValue } from './run-schemas';
import { apiChunkOf } from './run-stream-shapes';
import { RunWebhooks } from './run-webhook';
import {
  graphModesOf,
  hasEnded,
  lastHumanText,
  MessagesAccumulator,
  platformErrorOf,
  rowStatusesOf,
  type SseEvent,
  toApiRun,
  waitErrorOf,
} from './run-wire';
import { WebhookDelivery } from './webhook-delivery';

/** How long a cancelled run gets to stop before a rollback gives up. */
const STOP_TIMEOUT_MS = 30_000;

/** `config.configurable` of an assistant or a run (the orchestrator drops the keys the service sets itself). */
function configurableOf(config: unknown): Record<string, unknown> {
  return objectOf((config as { configurable?: unknown } | null | undefined)?.configurable);
}

function objectOf(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Stream modes whose chunks carry the run's config or metadata, hence its checkpoint `thread_id`. */
const THREAD_ID_MODES = new Set(['messages', 'events', 'debug', 'checkpoints', 'tasks']);

/**
 * Chunks name the checkpoint thread (`{tenant}:{thread}`, see threadIdOf) in `thread_id` (message metadata,
 * `events` metadata, checkpoint configs); a client knows the thread by its API id. Replaces exactly that value,
 * a few levels deep, in copies.
 */
function apiThreadIds(internal: string, api: string): (data: unknown) => unknown {
  const fix = (v: unknown, depth: number): unknown => {
    if (depth > 5 || !v || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map((x) => fix(x, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = k === 'thread_id' && x === internal ? api : fix(x, depth + 1);
    return out;
  };
  return (data) => fix(data, 0);
}

/** The stream mode an API event belongs to (`messages/partial` → messages, `updates|ns` → updates). */
function modeOfEvent(event: string): string {
  const mode = event.split('|')[0];
  return mode.startsWith('messages/') ? 'messages' : mode === 'messages' ? 'messages-tuple' : mode;
}

export interface CreatedRun {
  run: RunEntity;
  threadId: string;
  temporary: boolean;
  modes: ApiStreamMode[];
}

/**
 * Runs of the LangGraph API, mapped onto the service's runs: a run is a run row accepted as async and queued
 * (BullMQ workers or the in-process queue execute it) — or, for `wait` and `stream`, executed by this process at
 * once when it can (LocalRuns) —, its thread is the session, its assistant's graph is the agent. Streams come from
 * the run event bus (what the orchestrator publishes per requested stream mode), and waiting reads the run row,
 * so both work when another process executes the run; a run executed here is followed without reading back.
 */
@Injectable()
export class LangGraphRunsService {
  private readonly logger = new Logger(LangGraphRunsService.name);

  constructor(
    private readonly runs: RunsService,
    private readonly records: RunStore,
    private readonly repo: LgRunsRepository,
    private readonly threads: ThreadsRepository,
    private readonly sessions: SessionStore,
    private readonly threadsService: ThreadsService,
    private readonly assistants: AssistantsService,
    private readonly admission: RunAdmission,
    private readonly events: RunEventBus,
    private readonly webhooks: RunWebhooks,
    private readonly delivery: WebhookDelivery,
    private readonly ends: RunEnds,
    private readonly checks: RunRequestChecks,
  ) {}

  /**
   * Accepts and queues a run on `threadId` (null: a new temporary thread). `waited`: the request waits for the run
   * (`wait`, `stream`), so this process executes it at once when it can (see LocalRuns).
   */
  async create(
    tenantId: string,
    threadId: string | null,
    body: RunCreateBody,
    opts: { waited?: boolean; protocol?: boolean } = {},
  ): Promise<CreatedRun> {
    // the custom auth first (langgraph.json `auth`): its filter hides another user's thread, its metadata is the run's
    const value: Record<string, unknown> = { thread_id: threadId, assistant_id: body.assistant_id, metadata: { ...(body.metadata ?? {}) } };
    const filters = await this.threadsService.authorize('create_run', value);
    const runMetadata = value.metadata as Record<string, unknown> | undefined;
    // independent reads, side by side (they are most of what accepting a run costs)
    const [assistant, known] = await Promise.all([
      this.assistants.forRun(tenantId, body.assistant_id),
      threadId === null ? null : this.threads.getWithInflight(tenantId, threadId, filters),
      body.webhook ? this.webhooks.check(body.webhook) : null,
    ]);
    const temporary = threadId === null && (body.on_completion ?? 'delete') === 'delete';
    const id = threadId ?? randomUUID();
    if (threadId !== null && !known && body.if_not_exists !== 'create') throw new ThreadNotFoundException(id);
    const thread = threadId === null ? null : { id, hasCheckpoint: !!known?.hasCheckpoint, inflight: known?.inflight ?? [] };
    await this.checks.check(tenantId, body, assistant.graph_id, thread);
    const inflight = known?.inflight ?? [];
    // a new thread takes what the custom auth added to the run's metadata (its owner), so its runs can read it
    const newThreadMetadata = filters ? { ...(runMetadata ?? {}) } : {};
    if (threadId === null) await this.sessions.insert(tenantId, id, newThreadMetadata);
    else if (!known) {
      // created by another request meanwhile (its runs count: the multitask strategy is decided with the insert):
      // the custom auth's filter must hold for it
      if (!(await this.sessions.insert(tenantId, id, newThreadMetadata))) {
        if (filters && !(await this.threads.get(tenantId, id, filters))) throw new ThreadNotFoundException(id);
      }
    }
    const strategy = body.multitask_strategy ?? 'reject';
    // interrupt / rollback stop the thread's runs: what the caller may do to the thread's runs (as a cancel)
    if (known && (strategy === 'interrupt' || strategy === 'rollback')) await this.thread(tenantId, id, 'update');

    const requested = body.stream_mode == null ? [] : Array.isArray(body.stream_mode) ? body.stream_mode : [body.stream_mode];
    const modes: ApiStreamMode[] = requested.length ? [...new Set(requested)] : ['values'];
    const input = body.input ?? undefined;
    const command = body.command
      ? { ...body.command, update: body.command.update ?? undefined, goto: body.command.goto ?? undefined }
      : undefined;
    const message = lastHumanText(input) ?? '';
    // no input (null or absent) and no command continues the thread from its checkpoint, as after an interrupt
    const proceed = body.input == null && !command;
    if (!message && !input && !command && !proceed) throw new InvalidRequestException('a run needs an input or a command');
    const checkpointId = body.checkpoint_id ?? body.checkpoint?.checkpoint_id ?? undefined;
    // the thread's metadata names the run's assistant and graph; an unchanged pair (the usual next run) is not rewritten
    const recorded = known?.row;
    const same =
      recorded?.agent != null &&
      recorded.metadata.assistant_id === assistant.assistant_id &&
      recorded.metadata.graph_id === assistant.graph_id;
    const assistantMeta = same ? undefined : { assistant_id: assistant.assistant_id, graph_id: assistant.graph_id };
    // a thread just read with no unfinished run is not read again, and its metadata goes with the run's lease
    const session =
      known && !inflight.length ? { id, agent: known.row.agent, metadata: assistantMeta, noCheckpoint: !known.hasCheckpoint } : undefined;
    const run = await this.submit(
      {
        multitask: threadId === null ? undefined : strategy,
        message,
        session_id: id,
        agent: assistant.graph_id,
        tenant_id: tenantId,
        metadata: runMetadata && Object.keys(runMetadata).length ? runMetadata : undefined,
        // a thread event protocol run streams every protocol channel to the thread's log (see events/graph-stream.ts)
        stream: opts.protocol
          ? { modes: [], protocol: true }
          : { modes: graphModesOf(modes), subgraphs: body.stream_subgraphs ?? false, events: modes.includes('events') },
        input,
        command,
        interrupt_before: body.interrupt_before ?? undefined,
        interrupt_after: body.interrupt_after ?? undefined,
        checkpoint_id: checkpointId,
        continue: proceed || undefined,
        start_at: body.after_seconds ? new Date(Date.now() + body.after_seconds * 1000).toISOString() : undefined,
        configurable: { ...configurableOf(assistant.config), ...configurableOf(body.config) },
        context: { ...objectOf(assistant.context), ...objectOf(body.context) },
        lg: {
          assistant_id: assistant.assistant_id,
          multitask_strategy: strategy,
          metadata: runMetadata ?? {},
          stream_mode: modes,
          temporary,
          graph_options: graphOptionsOf(body, assistant.config),
          ...(body.webhook ? { webhook: body.webhook } : {}),
        },
      },
      { here: opts.waited, session },
    );
    const recordedWithLease = session && run.status === 'running' && run.attempts === 1;
    if (!same && !recordedWithLease) await this.sessions.recordRunAssistant(tenantId, id, assistant.assistant_id, assistant.graph_id);
    if (body.webhook) void this.webhookWhenEnded(id, run.id);
    if (temporary) void this.deleteWhenEnded(tenantId, id, run.id);
    return { run, threadId: id, temporary, modes };
  }

  /**
   * The run service's submit, which decides the multitask strategy where the run is written (both dialects alike);
   * its refusal of a `reject` run on a busy session is this dialect's THREAD_BUSY (409), a thread deleted meanwhile
   * its 404.
   */
  private async submit(req: TurnRequest, opts: { here?: boolean; session?: KnownSession }): Promise<RunEntity> {
    try {
      return await this.runs.submit(req, opts);
    } catch (e) {
      if (e instanceof SessionBusyException && req.session_id) throw new ThreadBusyException(req.session_id);
      if (e instanceof SessionNotFoundException && req.session_id) throw new ThreadNotFoundException(req.session_id);
      throw e;
    }
  }

  async get(tenantId: string, threadId: string, runId: string): Promise<Record<string, unknown>> {
    return toApiRun(await this.row(tenantId, threadId, runId));
  }

  async list(tenantId: string, threadId: string, q: RunListQueryValue): Promise<Array<Record<string, unknown>>> {
    await this.thread(tenantId, threadId, 'read');
    const ids = await this.repo.list(tenantId, threadId, q.status ? rowStatusesOf(q.status) : null, q.limit, q.offset);
    const rows = await Promise.all(ids.map((id) => this.records.get(id, 'run')));
    return rows.filter((r) => !q.status || q.status !== 'error' || r.error?.code !== 'RUN_TIMEOUT').map(toApiRun);
  }

  /**
   * Cancels a run (`interrupt`: it ends `interrupted`; `rollback`: it is deleted with its checkpoints once stopped).
   * A run that has already ended is left as it is and the cancel succeeds, as LangGraph Server answers it.
   */
  async stop(tenantId: string, threadId: string, runId: string, action: 'interrupt' | 'rollback', wait: boolean): Promise<void> {
    const run = await this.row(tenantId, threadId, runId, 'update');
    if (!hasEnded(run)) {
      await this.runs.cancel(runId).catch((e: unknown) => {
        if (!(e instanceof RunAlreadyFinishedException)) throw e;
      });
    }
    if (action === 'rollback') {
      await this.ended(runId, AbortSignal.timeout(STOP_TIMEOUT_MS));
      await this.records.deleteRun(tenantId, threadIdOf(tenantId, threadId), runId);
    } else if (wait) await this.ended(runId);
  }

  /**
   * `POST /runs/cancel`: the given runs of a thread (unknown ones 404, ended ones left alone), or every LangGraph
   * API run of the tenant that is `pending` (queued), `running`, or either (`all`) on a thread the caller may see.
   */
  async cancelMany(tenantId: string, body: RunCancelManyBody, action: 'interrupt' | 'rollback'): Promise<void> {
    let targets: Array<{ id: string; threadId: string }>;
    if (body.thread_id && body.run_ids?.length) {
      const threadId = body.thread_id;
      const rows = await Promise.all(body.run_ids.map((id) => this.row(tenantId, threadId, id)));
      targets = rows.filter((r) => !hasEnded(r)).map((r) => ({ id: r.id, threadId }));
    } else {
      const statuses = body.status === 'pending' ? ['queued'] : body.status === 'running' ? ['running'] : ['queued', 'running'];
      targets = await this.repo.byStatus(tenantId, statuses);
    }
    for (const t of targets) {
      await this.stop(tenantId, t.threadId, t.id, action, false).catch((e: unknown) => {
        // ended meanwhile, gone, or on a thread the caller may not see (another user's)
        if (!(e instanceof RunAlreadyFinishedException) && !(e instanceof RunNotFoundException) && !(e instanceof ThreadNotFoundException))
          throw e;
      });
    }
  }

  /** Deletes an ended run and the checkpoints it wrote (409 while it has not ended). */
  async delete(tenantId: string, threadId: string, runId: string): Promise<void> {
    const run = await this.row(tenantId, threadId, runId, 'delete');
    if (!hasEnded(run)) throw new ThreadBusyException(threadId);
    await this.records.deleteRun(tenantId, threadIdOf(tenantId, threadId), runId);
  }

  /** Waits for the run's end; the thread's final values (with `__interrupt__` when interrupted), or `{ __error__ }`. */
  async join(tenantId: string, threadId: string, runId: string, signal?: AbortSignal, justCreated = false): Promise<unknown> {
    if (!justCreated) await this.row(tenantId, threadId, runId);
    const here = await this.completedHere(runId, signal);
    if (here) return here.values;
    const run = await this.ended(runId, signal);
    if (run.status === 'failed') return { __error__: waitErrorOf(run.error) };
    const thread = await this.threadsService.get(tenantId, threadId).catch(() => null);
    if (!thread) return null;
    const values = (thread.values ?? {}) as Record<string, unknown>;
    const interrupts = Object.values((thread.interrupts ?? {}) as Record<string, unknown[]>).flat();
    return run.status === 'interrupted' && interrupts.length ? { ...values, __interrupt__: interrupts } : values;
  }

  /**
   * The run's events as LangGraph Server streams them: `metadata` `{ run_id, attempt }`, then one event per chunk of
   * each requested mode (`messages-tuple` → `messages` events, `messages` → `messages/metadata|partial|complete`,
   * `mode|ns` from subgraphs, `events`: LangChain `streamEvents` v2 events), `error` `{ error, message }` when the run failed. After `lastEventId` when given.
   */
  async *stream(
    runId: string,
    modes: ApiStreamMode[] | null,
    opts: { lastEventId?: string; signal: AbortSignal; tenantId: string; threadId: string; only?: string[] },
  ): AsyncGenerator<SseEvent> {
    // a join asking for some modes only gets theirs, numbered as in the whole stream
    const only = opts.only?.length ? new Set(opts.only) : null;
    // event ids as LangGraph Server numbers them: 0, 1, 2… over the events of this stream; a client resuming after
    // id N gets the same events recounted from the run's first one (its `metadata`), those after N
    let after = /^\d+$/.test(opts.lastEventId ?? '') ? Number(opts.lastEventId) : -1;
    let n = 0;
    for await (const e of this.apiEvents(runId, modes, opts)) {
      // the bus no longer holds the run's first events (beyond RUN_EVENTS_WINDOW): what it holds, none skipped
      if (n === 0 && e.event !== 'metadata') after = -1;
      const id = n++;
      if (id > after && (!only || e.event === 'metadata' || only.has(modeOfEvent(e.event)))) yield { ...e, id: String(id) };
    }
  }

  private async *apiEvents(
    runId: string,
    modes: ApiStreamMode[] | null,
    opts: { signal: AbortSignal; tenantId: string; threadId: string },
  ): AsyncGenerator<SseEvent> {
    const toApiThread = apiThreadIds(threadIdOf(opts.tenantId, opts.threadId), opts.threadId);
    const accumulator = new MessagesAccumulator();
    const wanted = modes ? new Set<string>(modes) : null;
    const asTuple = !wanted || wanted.has('messages-tuple');
    const here = this.runs.localExecution(runId) ?? undefined;
    for await (const raw of this.events.subscribe(runId, { signal: opts.signal, here })) {
      const [mode, ...ns] = raw.event.split('|');
      const e = THREAD_ID_MODES.has(mode) ? { ...raw, data: toApiThread(raw.data) } : raw;
      const suffix = ns.length ? `|${ns.join('|')}` : '';
      if (mode === 'metadata') {
        const { run_id, attempt } = (e.data ?? {}) as { run_id?: string; attempt?: number };
        yield { id: e.id, event: 'metadata', data: { run_id: run_id ?? runId, attempt: attempt ?? 1 } };
      } else if (mode === 'messages') {
        if (asTuple) yield { id: e.id, event: `messages${suffix}`, data: e.data };
        if (wanted?.has('messages')) yield* accumulator.chunk(e.data, suffix, e.id);
      } else if (mode === 'result') {
        const error = (e.data as { error?: { code?: string; message?: string } | null } | null)?.error;
        if (error && error.code !== 'CANCELLED') yield { id: e.id, event: 'error', data: platformErrorOf(error) };
        return;
      } else if (mode === 'values' && wanted?.has('messages')) {
        // as LangGraph Server: the state first, then the messages it completes
        if (wanted.has('values')) yield { id: e.id, event: e.event, data: e.data };
        yield* accumulator.values(e.data, e.id);
      } else if (
        ['values', 'updates', 'custom', 'debug', 'tasks', 'checkpoints', 'events'].includes(mode) &&
        (!wanted || wanted.has(mode))
      ) {
        yield { id: e.id, event: e.event, data: apiChunkOf(mode, e.data) };
      }
    }
  }

  /**
   * A run this process executes, followed to its end from its events: its final values when it completed (the
   * last `values` chunk is the final state; its `result` tells how it ended), without reading the run and the
   * thread back. Null when it did not run here, did not complete, or did not publish `values` (then the stored
   * run and thread answer).
   */
  private async completedHere(runId: string, signal?: AbortSignal): Promise<{ values: unknown } | null> {
    const here = this.runs.localExecution(runId);
    if (!here) return null;
    let values: unknown;
    let result: { error?: unknown; metadata?: { interrupted?: unknown } } | undefined;
    for await (const e of this.events.subscribe(runId, { signal, here })) {
      if (e.event === 'values') values = e.data;
      else if (e.event === 'result') result = (e.data ?? {}) as typeof result;
    }
    return result && !result.error && !result.metadata?.interrupted && values !== undefined && !signal?.aborted ? { values } : null;
  }

  /** Cancels a run whose stream client went away (`on_disconnect: cancel`), unless it has ended. */
  async cancelQuietly(runId: string): Promise<void> {
    const run = await this.records.get(runId, 'run').catch(() => null);
    if (run && !hasEnded(run)) await this.runs.cancel(runId).catch(() => undefined);
  }

  /**
   * The run row once it has ended (RunEnds.awaitEnd: a run executed by this process is read when its execution
   * is over, any other is woken by its `end` on the event bus, with a slow re-read as the safety net). When
   * `signal` aborts first, the row as it is then.
   */
  async ended(runId: string, signal?: AbortSignal): Promise<RunEntity> {
    const here = this.runs.localExecution(runId) ?? undefined;
    try {
      return await this.ends.awaitEnd(runId, { signal, here, what: 'run' });
    } catch (err) {
      if (err instanceof RunEndNotSeen) return err.run;
      throw err;
    }
  }

  /** The accepting process delivers the webhook as soon as the run ends (WebhookDelivery's sweep is the backstop). */
  private async webhookWhenEnded(threadId: string, runId: string): Promise<void> {
    try {
      await this.ended(runId);
      await this.delivery.deliver(runId);
    } catch (err) {
      this.logger.warn({ msg: 'webhook not sent', thread_id: threadId, run_id: runId, err: (err as Error).message });
    }
  }

  /** A stateless run's thread (`on_completion: delete`) goes once the run has ended. */
  private async deleteWhenEnded(tenantId: string, threadId: string, runId: string): Promise<void> {
    try {
      await this.ended(runId);
      // the stream / wait of the request reads the thread first
      await new Promise((r) => setTimeout(r, 1000));
      await this.admission.deleteSession(threadId, tenantId);
    } catch (err) {
      this.logger.warn({ msg: 'temporary thread not deleted', thread_id: threadId, run_id: runId, err: (err as Error).message });
    }
  }

  /** Whether the auth handlers' read filter hides the thread (absent or another user's) from the caller. */
  async hiddenByAuth(tenantId: string, threadId: string): Promise<boolean> {
    const filters = await this.threadsService.authorize('read', { thread_id: threadId });
    return filters !== undefined && !(await this.threads.get(tenantId, threadId, filters));
  }

  /** The thread of a run request, 404 when it does not exist or the custom auth's filter for `action` hides it. */
  private async thread(tenantId: string, threadId: string, action: string): Promise<void> {
    const filters = await this.threadsService.authorize(action, { thread_id: threadId });
    if (!(await this.threads.get(tenantId, threadId, filters))) throw new ThreadNotFoundException(threadId);
  }

  private async row(tenantId: string, threadId: string, runId: string, action = 'read'): Promise<RunEntity> {
    await this.thread(tenantId, threadId, action);
    const run = await this.records.getForTenant(runId, tenantId, 'run').catch(() => null);
    if (!run || run.sessionId !== threadId) throw new RunNotFoundException(runId, 'run');
    return run;
  }
}
