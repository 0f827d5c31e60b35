import { randomUUID } from 'node:crypto';

import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { z } from 'zod';

import { DomainException } from '../../core/errors';
import { ThreadEventLog, type ThreadLogEvent, threadLogKey } from '../../events/thread-event-log';
import { ThreadNotFoundException } from '../errors';
import { LangGraphRunsService } from '../runs/lg-runs.service';
import { RunCreate } from '../runs/run-schemas';
import { HistoryRequest } from '../schemas';
import { ThreadsRepository } from '../threads/threads.repository';
import { ThreadsService } from '../threads/threads.service';
import { agentTreeOf } from './agent-tree';
import {
  InputInjectParams,
  InputRespondParams,
  ListCheckpointsParams,
  problemOf,
  RunStartParams,
  StateForkParams,
  StateGetParams,
  SubscribeParams,
} from './command-params';
import { matchesFilter, supportedChannel } from './event-filter';
import type { CommandResponse, EventEnvelope, EventFilter, ProtocolCommand, ProtocolErrorCode } from './protocol-types';

/** A command refused in the protocol's own terms (an `error` envelope, not an HTTP error). */
class ProtocolRefusal extends Error {
  constructor(
    readonly code: ProtocolErrorCode,
    message: string,
  ) {
    super(message);
  }
}

type Result = Record<string, unknown>;

/**
 * The thread event protocol without its transport: commands in, envelopes out, and a thread's events as an
 * async iterable. The SSE controller and the WebSocket gateway are adapters over these two methods. The
 * principal is the request's (ambient, as for every service); `tenantId` is the caller's tenant.
 *
 * Runs start through the LangGraph API's run path (`LangGraphRunsService.create` → the run service): the
 * multitask strategy (default `enqueue`) is honoured, `reject` refuses while a run is in flight. A run's events
 * are numbered in the thread's log by the process that executes it (events/protocol-run-event-bus.ts), so any
 * process serves the stream with the same ids.
 */
@Injectable()
export class ThreadProtocolService implements OnModuleDestroy {
  private readonly logger = new Logger(ThreadProtocolService.name);
  /** aborted at shutdown: a thread's stream never ends by itself, the server's close must not wait for it */
  private readonly closing = new AbortController();

  constructor(
    private readonly runs: LangGraphRunsService,
    private readonly threads: ThreadsService,
    private readonly repo: ThreadsRepository,
    private readonly log: ThreadEventLog,
  ) {}

  /**
   * Runs one command on a thread. A bad or refused command is an `error` envelope; a thread the caller may not
   * see (or may not act on) throws the dialect's error (404 / 403), as the threads routes answer.
   */
  async command(tenantId: string, threadId: string, cmd: ProtocolCommand): Promise<CommandResponse> {
    try {
      const result = await this.dispatch(tenantId, threadId, cmd);
      return { type: 'success', id: cmd.id, result, meta: await this.meta(tenantId, threadId) };
    } catch (e) {
      const refusal = this.refusalOf(e);
      return { type: 'error', id: cmd.id, error: refusal.code, message: refusal.message };
    }
  }

  /**
   * The thread's events matching `filter`, replayed after `filter.since` (the whole window kept when absent)
   * then live, until `signal` aborts. Authorized (`threads:read`) before the first event: a thread the caller
   * may not read throws 404. A thread that does not exist yet may be followed (the SDK opens its streams before
   * `run.start` creates it); its first event is only sent once the caller may read the thread. Ending the
   * iteration never cancels a run.
   */
  async *events(tenantId: string, threadId: string, filter: EventFilter, signal: AbortSignal): AsyncGenerator<EventEnvelope> {
    let readable = await this.readable(tenantId, threadId);
    const until = AbortSignal.any([signal, this.closing.signal]);
    for await (const e of this.log.read(threadLogKey(tenantId, threadId), { since: filter.since, signal: until })) {
      if (!readable) {
        readable = await this.readable(tenantId, threadId);
        if (!readable) return; // created meanwhile by someone whose thread the caller may not read
      }
      const envelope = envelopeOf(e);
      if (matchesFilter(filter, envelope)) yield envelope;
    }
  }

  onModuleDestroy(): void {
    this.closing.abort();
  }

  /** Throws what `events` would throw first (404 for a thread the caller may not read): before a stream's headers. */
  async authorizeStream(tenantId: string, threadId: string): Promise<void> {
    await this.readable(tenantId, threadId);
  }

  /** Whether the caller may read the thread (true); false when it does not exist yet; 404 when it is hidden. */
  private async readable(tenantId: string, threadId: string): Promise<boolean> {
    try {
      await this.threads.get(tenantId, threadId);
      return true;
    } catch (e) {
      if (!(e instanceof ThreadNotFoundException)) throw e;
      if (await this.repo.get(tenantId, threadId)) throw e;
      return false;
    }
  }

  private dispatch(tenantId: string, threadId: string, cmd: ProtocolCommand): Promise<Result> {
    const params = cmd.params ?? {};
    switch (cmd.method) {
      case 'run.start':
        return this.runStart(tenantId, threadId, parse(RunStartParams, params));
      case 'input.respond':
        return this.inputRespond(tenantId, threadId, parse(InputRespondParams, params));
      case 'input.inject':
        return this.inputInject(tenantId, threadId, parse(InputInjectParams, params));
      case 'state.get':
        return this.stateGet(tenantId, threadId, parse(StateGetParams, params));
      case 'state.listCheckpoints':
        return this.listCheckpoints(tenantId, threadId, parse(ListCheckpointsParams, params));
      case 'state.fork':
        return this.fork(tenantId, threadId, parse(StateForkParams, params));
      case 'agent.getTree':
        return this.tree(tenantId, threadId);
      case 'subscription.subscribe':
        return this.subscribe(tenantId, threadId, parse(SubscribeParams, params));
      case 'subscription.unsubscribe':
        return Promise.resolve({});
      default:
        throw new ProtocolRefusal('unknown_command', `Unknown protocol command: ${String(cmd.method).slice(0, 100)}`);
    }
  }

  /** A run on the thread (created when missing); its input resumes the thread when an interrupt waits. */
  private async runStart(tenantId: string, threadId: string, p: z.infer<typeof RunStartParams>): Promise<Result> {
    const pending = p.input != null ? await this.pendingInterrupts(tenantId, threadId).catch(() => []) : [];
    const resume = pending.length > 0;
    const runId = await this.start(tenantId, threadId, {
      assistant_id: p.assistant_id,
      ...(resume ? { command: { resume: p.input } } : { input: p.input ?? null }),
      config: p.config,
      metadata: p.metadata,
      multitask_strategy: p.multitaskStrategy ?? 'enqueue',
      checkpoint_id: p.forkFrom ?? checkpointIdOf(p.config),
    });
    return { run_id: runId };
  }

  /** Resumes the thread's interrupts by id (with an optional state update and jump, in the same superstep). */
  private async inputRespond(tenantId: string, threadId: string, p: z.infer<typeof InputRespondParams>): Promise<Result> {
    const answers = p.responses ?? [{ interrupt_id: p.interrupt_id!, response: p.response }];
    const pending = await this.pendingInterrupts(tenantId, threadId);
    if (pending.length === 0) throw new ProtocolRefusal('no_such_run', 'No interrupted run is bound to this thread.');
    const unknown = answers.find((a) => !pending.includes(a.interrupt_id));
    if (unknown)
      throw new ProtocolRefusal('no_such_interrupt', `No pending interrupt ${unknown.interrupt_id.slice(0, 128)} on this thread.`);
    const resume = Object.fromEntries(answers.map((a) => [a.interrupt_id, a.response]));
    const runId = await this.start(tenantId, threadId, {
      assistant_id: await this.assistantOf(tenantId, threadId),
      command: { resume, ...(p.update ? { update: p.update } : {}), ...(p.goto ? { goto: p.goto } : {}) },
      config: p.config,
      metadata: p.metadata,
      multitask_strategy: 'enqueue',
    });
    void runId; // as the reference: an empty result (the resumed run's events come on the thread's stream)
    return {};
  }

  /** A message into the thread: a run with it as input, after the run in flight (if any). */
  private async inputInject(tenantId: string, threadId: string, p: z.infer<typeof InputInjectParams>): Promise<Result> {
    const { role, content, name } = p.message;
    const runId = await this.start(tenantId, threadId, {
      assistant_id: await this.assistantOf(tenantId, threadId),
      input: { messages: [{ role, content, ...(name ? { name } : {}) }] },
      multitask_strategy: 'enqueue',
    });
    return { run_id: runId };
  }

  private async stateGet(tenantId: string, threadId: string, p: z.infer<typeof StateGetParams>): Promise<Result> {
    const state = await this.threads.state(tenantId, threadId);
    const values = (state.values ?? {}) as Record<string, unknown>;
    const ref = state.checkpoint as { checkpoint_id?: string; checkpoint_ns?: string } | null | undefined;
    return {
      values: p.keys ? Object.fromEntries(Object.entries(values).filter(([k]) => p.keys!.includes(k))) : values,
      ...(ref?.checkpoint_id ? { checkpoint: { id: ref.checkpoint_id, ns: ref.checkpoint_ns ?? '' } } : {}),
    };
  }

  /** The thread's checkpoints, newest first (`before` a checkpoint id). */
  private async listCheckpoints(tenantId: string, threadId: string, p: z.infer<typeof ListCheckpointsParams>): Promise<Result> {
    const history = await this.threads.history(tenantId, threadId, HistoryRequest.parse({ limit: p.limit ?? 10, before: p.before }));
    return { checkpoints: history.map(checkpointSummaryOf) };
  }

  /** A run from one of the thread's checkpoints (time travel): the checkpoint must be the thread's. */
  private async fork(tenantId: string, threadId: string, p: z.infer<typeof StateForkParams>): Promise<Result> {
    await this.threads.state(tenantId, threadId, { checkpoint_id: p.checkpoint_id });
    const runId = await this.start(tenantId, threadId, {
      assistant_id: p.assistant_id ?? (await this.assistantOf(tenantId, threadId)),
      input: p.input ?? null,
      config: p.config,
      multitask_strategy: 'enqueue',
      checkpoint_id: p.checkpoint_id,
    });
    return { run_id: runId, thread_id: threadId };
  }

  private async tree(tenantId: string, threadId: string): Promise<Result> {
    await this.threads.get(tenantId, threadId);
    return { tree: agentTreeOf(await this.window(tenantId, threadId)) };
  }

  /** Over HTTP the events come on the SSE stream: a subscription only checks its filter and counts what it replays. */
  private async subscribe(tenantId: string, threadId: string, p: z.infer<typeof SubscribeParams>): Promise<Result> {
    if (!p.channels.every(supportedChannel))
      throw new ProtocolRefusal('invalid_argument', 'subscription.subscribe received an unsupported channel.');
    await this.threads.get(tenantId, threadId);
    const replayed = (await this.window(tenantId, threadId)).filter((e) => matchesFilter(p, envelopeOf(e))).length;
    return { subscription_id: randomUUID(), replayed_events: replayed };
  }

  /** Accepts a protocol run through the LangGraph API's run path; the id of the run. */
  private async start(tenantId: string, threadId: string, body: Record<string, unknown>): Promise<string> {
    const parsed = RunCreate.safeParse({ ...body, if_not_exists: 'create' });
    if (!parsed.success) throw new ProtocolRefusal('invalid_argument', problemOf(parsed.error));
    const { run } = await this.runs.create(tenantId, threadId, parsed.data, { protocol: true });
    return run.id;
  }

  private async pendingInterrupts(tenantId: string, threadId: string): Promise<string[]> {
    const state = await this.threads.state(tenantId, threadId);
    const tasks = (state.tasks ?? []) as Array<{ interrupts?: Array<{ id?: string }> }>;
    return tasks.flatMap((t) => (t.interrupts ?? []).map((i) => i.id).filter((id): id is string => typeof id === 'string'));
  }

  private async assistantOf(tenantId: string, threadId: string): Promise<string> {
    const thread = await this.threads.get(tenantId, threadId);
    const metadata = (thread.metadata ?? {}) as { assistant_id?: unknown; graph_id?: unknown };
    const id = metadata.assistant_id ?? metadata.graph_id;
    if (typeof id !== 'string') throw new ProtocolRefusal('no_such_run', 'Thread has no active assistant; call run.start first.');
    return id;
  }

  /** The events the thread's log still holds (up to its head when read). */
  private async window(tenantId: string, threadId: string): Promise<ThreadLogEvent[]> {
    const key = threadLogKey(tenantId, threadId);
    const head = await this.log.head(key);
    const out: ThreadLogEvent[] = [];
    if (head === 0) return out;
    const signal = AbortSignal.timeout(2000); // a window that expired while the counter stayed
    for await (const e of this.log.read(key, { signal })) {
      out.push(e);
      if (e.seq >= head) break;
    }
    return out;
  }

  private async meta(tenantId: string, threadId: string) {
    return { thread_id: threadId, applied_through_seq: await this.log.head(threadLogKey(tenantId, threadId)) };
  }

  /** A refusal as the protocol words it; what the dialect must answer itself (404, 403, 401) is rethrown. */
  private refusalOf(e: unknown): { code: ProtocolErrorCode; message: string } {
    if (e instanceof ProtocolRefusal) return { code: e.code, message: e.message };
    if (e instanceof DomainException) {
      if (e.code === 'CHECKPOINT_NOT_FOUND') return { code: 'no_such_checkpoint', message: e.message };
      if (e.code === 'THREAD_BUSY') return { code: 'invalid_argument', message: `${e.message} (multitaskStrategy "reject")` };
      if (e.status === 404 && e.code === 'THREAD_NOT_FOUND') throw e;
      if (e.status === 401 || e.status === 403) throw e;
      if (e.status < 500) return { code: 'invalid_argument', message: e.message };
    }
    this.logger.error({ msg: 'protocol command failed', err: (e as Error)?.message });
    return { code: 'unknown_error', message: 'The command failed.' };
  }
}

function parse<T extends z.ZodTypeAny>(schema: T, params: unknown): z.infer<T> {
  const parsed = schema.safeParse(params);
  if (!parsed.success) throw new ProtocolRefusal('invalid_argument', problemOf(parsed.error));
  return parsed.data as z.infer<T>;
}

function checkpointIdOf(config: Record<string, unknown> | undefined): string | undefined {
  const id = (config?.configurable as { checkpoint_id?: unknown } | undefined)?.checkpoint_id;
  return typeof id === 'string' && id ? id : undefined;
}

export function envelopeOf(e: ThreadLogEvent): EventEnvelope {
  return { type: 'event', event_id: String(e.seq), seq: e.seq, method: e.method, params: e.params };
}

function checkpointSummaryOf(state: Record<string, unknown>): Record<string, unknown> {
  const checkpoint = (state.checkpoint ?? {}) as { checkpoint_id?: string };
  const metadata = (state.metadata ?? {}) as { step?: number; writes?: Record<string, unknown> | null };
  const node = Object.keys(metadata.writes ?? {})[0];
  return {
    id: checkpoint.checkpoint_id,
    timestamp: state.created_at,
    step: typeof metadata.step === 'number' ? metadata.step : -1,
    ...(node ? { node_name: node } : {}),
    metadata,
  };
}
