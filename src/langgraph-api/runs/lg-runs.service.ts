import { randomUUID } from 'node:crypto';

import { Injectable, Logger } from '@nestjs/common';

import { RunAlreadyFinishedException, RunNotFoundException, SessionBusyException, SessionNotFoundException } from '../../core/errors';
import type { RunEntity } from '../../database/entities';
import { type KnownSession, type TurnRequest } from '../../orchestrator/run-admission.service';
import { RunsService } from '../../orchestrator/runs.service';
import { ToolApprovalService } from '../../orchestrator/tool-approval.service';
import { RunStore } from '../../runs/store/run-store';
import { SessionStore } from '../../runs/store/session-store';
import { AssistantsService } from '../assistants/assistants.service';
import { InvalidRequestException, ThreadBusyException, ThreadNotFoundException } from '../errors';
import { ThreadsRepository } from '../threads/threads.repository';
import { ThreadsService } from '../threads/threads.service';
import { LgRunsRepository } from './lg-runs.repository';
import { apiRunEvents } from './run-event-stream';
import { RunRequestChecks } from './run-request-checks';
import { type ApiStreamMode, graphOptionsOf, type RunCancelManyBody, type RunCreateBody, type RunListQueryValue } from './run-schemas';
import { RunWebhooks } from './run-webhook';
import { graphModesOf, hasEnded, lastHumanText, rowStatusesOf, type SseEvent, toApiRun, waitErrorOf } from './run-wire';
import { TemporaryThreadReaders } from './temporary-thread-readers';
import { WebhookDelivery } from './webhook-delivery';

/** `config.configurable` of an assistant or a run (the orchestrator drops the keys the service sets itself). */
function configurableOf(config: unknown): Record<string, unknown> {
  return objectOf((config as { configurable?: unknown } | null | undefined)?.configurable);
}

function objectOf(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
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
  private readonly readers = new TemporaryThreadReaders();

  constructor(
    private readonly runs: RunsService,
    private readonly records: RunStore,
    private readonly repo: LgRunsRepository,
    private readonly threads: ThreadsRepository,
    private readonly sessions: SessionStore,
    private readonly threadsService: ThreadsService,
    private readonly assistants: AssistantsService,
    private readonly webhooks: RunWebhooks,
    private readonly delivery: WebhookDelivery,
    private readonly checks: RunRequestChecks,
    private readonly approvals: ToolApprovalService,
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
        start_at: body.after_seconds ? new Date(Date.now() + body.after_seconds * 1000).toISOString() : undefined,
        graph: {
          input,
          command,
          interrupt_before: body.interrupt_before ?? undefined,
          interrupt_after: body.interrupt_after ?? undefined,
          checkpoint_id: checkpointId,
          continue: proceed || undefined,
          configurable: { ...configurableOf(assistant.config), ...configurableOf(body.config) },
          context: { ...objectOf(assistant.context), ...objectOf(body.context) },
          view: {
            assistant_id: assistant.assistant_id,
            multitask_strategy: strategy,
            metadata: runMetadata ?? {},
            stream_mode: modes,
            temporary,
            graph_options: graphOptionsOf(body, assistant.config),
            ...(body.webhook ? { webhook: body.webhook } : {}),
          },
        },
      },
      { here: opts.waited, session },
    );
    const recordedWithLease = session && run.status === 'running' && run.attempts === 1;
    if (!same && !recordedWithLease) await this.sessions.recordRunAssistant(tenantId, id, assistant.assistant_id, assistant.graph_id);
    const delivered = body.webhook ? this.webhookWhenEnded(id, run.id) : undefined;
    // the request that waits reads the thread once the run has ended (join releases it; a stream never reads it)
    if (temporary) {
      const reading = [delivered, opts.waited ? this.readers.hold(run.id) : undefined].filter((p) => p !== undefined);
      void this.runs.deleteSessionWhenEnded(tenantId, id, run.id, () => this.readers.done(run.id, reading));
    }
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
   * A run named by its id alone (A2A names a task so): the row once the caller may `action` its thread, else the
   * same 404 as for a run of a thread the caller may not see.
   */
  async byId(tenantId: string, runId: string, action = 'read'): Promise<RunEntity> {
    const run = await this.records.getForTenant(runId, tenantId, 'run').catch(() => null);
    if (!run) throw new RunNotFoundException(runId, 'run');
    return this.row(tenantId, run.sessionId, runId, action);
  }

  /** The decision on a tool call the run waits for (TOOL_APPROVAL), by whoever may update the run's thread. */
  async decideApproval(tenantId: string, threadId: string, runId: string, approved: boolean): Promise<void> {
    await this.row(tenantId, threadId, runId, 'update');
    await this.approvals.decide(runId, approved, tenantId);
  }

  /** Cancels a run (RunsService.stop); an ended run is left as it is and the cancel succeeds, as LangGraph Server answers it. */
  async stop(tenantId: string, threadId: string, runId: string, action: 'interrupt' | 'rollback', wait: boolean): Promise<void> {
    await this.runs.stop(await this.row(tenantId, threadId, runId, 'update'), action, wait);
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
    await this.runs.deleteEnded(run).catch((e: unknown) => {
      throw e instanceof SessionBusyException ? new ThreadBusyException(threadId) : e;
    });
  }

  /** Waits for the run's end; the thread's final values (with `__interrupt__` when interrupted), or `{ __error__ }`. */
  async join(tenantId: string, threadId: string, runId: string, signal?: AbortSignal, justCreated = false): Promise<unknown> {
    if (!justCreated) return this.joinRun(tenantId, threadId, runId, signal, false);
    try {
      return await this.joinRun(tenantId, threadId, runId, signal, true);
    } finally {
      this.readers.release(runId); // a temporary thread may go now
    }
  }

  private async joinRun(
    tenantId: string,
    threadId: string,
    runId: string,
    signal: AbortSignal | undefined,
    justCreated: boolean,
  ): Promise<unknown> {
    if (!justCreated) await this.row(tenantId, threadId, runId);
    const here = await this.runs.completedHere(runId, signal);
    if (here) return here.values;
    const run = await this.ended(runId, signal);
    if (run.status === 'failed') return { __error__: waitErrorOf(run.error) };
    const thread = await this.threadsService.get(tenantId, threadId).catch(() => null);
    if (!thread) return null;
    const values = (thread.values ?? {}) as Record<string, unknown>;
    const interrupts = Object.values((thread.interrupts ?? {}) as Record<string, unknown[]>).flat();
    return run.status === 'interrupted' && interrupts.length ? { ...values, __interrupt__: interrupts } : values;
  }

  /** The run's events as LangGraph Server streams them (run-event-stream.ts), from the run service's events of the run. */
  stream(
    runId: string,
    modes: ApiStreamMode[] | null,
    opts: { lastEventId?: string; signal: AbortSignal; tenantId: string; threadId: string; only?: string[]; pauses?: boolean },
  ): AsyncGenerator<SseEvent> {
    this.readers.release(runId); // a stream reads the run's events only, never its temporary thread
    return apiRunEvents(this.runs.runEvents(runId, { signal: opts.signal }), runId, modes, opts);
  }

  /** Cancels a run whose stream client went away (`on_disconnect: cancel`), unless it has ended. */
  cancelQuietly(runId: string): Promise<void> {
    return this.runs.cancelQuietly(runId);
  }

  /** The run row once it has ended (RunsService.awaitEnd); when `signal` aborts first, the row as it is then. */
  ended(runId: string, signal?: AbortSignal): Promise<RunEntity> {
    return this.runs.awaitEnd(runId, { signal });
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
