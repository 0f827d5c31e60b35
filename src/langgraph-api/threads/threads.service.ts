import { randomUUID } from 'node:crypto';

import type { RunnableConfig } from '@langchain/core/runnables';
import { Command, type StateSnapshot } from '@langchain/langgraph';
import { Injectable } from '@nestjs/common';

import { AgentRegistry } from '../../agents/agent-registry.service';
import { FactoryGraph } from '../../agents/custom-graphs/custom-graph.agent';
import type { AuthFilters } from '../../auth/auth-filters';
import { threadIdOf } from '../../auth/tenant';
import { AppConfig } from '../../config/app-config';
import { DomainException } from '../../core/errors';
import { RunEventBus } from '../../events/run-event-bus';
import { RunAdmission } from '../../orchestrator/run-admission.service';
import { SessionStore } from '../../runs/store/session-store';
import { AssistantsService } from '../assistants/assistants.service';
import { LanggraphCustomAuth } from '../auth/custom-auth';
import {
  CheckpointNotFoundException,
  CopySourceNotFoundException,
  InvalidRequestException,
  ThreadBusyException,
  ThreadExistsException,
  ThreadNotFoundException,
  ThreadWithoutGraphException,
} from '../errors';
import { checkpointOf, emptyThreadState, graphOf, interruptsOf, type LangGraphGraph, toThreadState } from '../graph-access';
import {
  type CheckpointRef,
  type HistoryRequestBody,
  type StateUpdateBody,
  type ThreadCreateBody,
  type ThreadPatchBody,
  type ThreadPruneBody,
  type ThreadSearchBody,
} from '../schemas';
import { toWire } from '../serde';
import { type ThreadFilter, type ThreadRow, ThreadsRepository } from './threads.repository';

/** What a session id looks like (another string names no thread). */
export const THREAD_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** When a `values` filter is given, this many candidates are read before filtering on their state. */
const VALUES_SCAN_CAP = 1000;

function contains(haystack: unknown, needle: unknown): boolean {
  if (needle === null || typeof needle !== 'object') return haystack === needle;
  if (Array.isArray(needle)) return Array.isArray(haystack) && needle.every((n) => haystack.some((h) => contains(h, n)));
  if (haystack === null || typeof haystack !== 'object' || Array.isArray(haystack)) return false;
  return Object.entries(needle).every(([k, v]) => contains((haystack as Record<string, unknown>)[k], v));
}

/**
 * Threads of the LangGraph API = sessions. A thread's graph is its session's agent, or — before its first
 * run — the `graph_id` of its metadata; its state and history come from that graph and the checkpointer on
 * thread `tenant:session`.
 */
@Injectable()
export class ThreadsService {
  constructor(
    private readonly repo: ThreadsRepository,
    private readonly sessions: SessionStore,
    private readonly registry: AgentRegistry,
    private readonly admission: RunAdmission,
    private readonly assistants: AssistantsService,
    private readonly auth: LanggraphCustomAuth,
    private readonly appConfig: AppConfig,
    private readonly events: RunEventBus,
  ) {}

  /**
   * The custom auth's filter for an action on threads (langgraph.json `auth`): every read, search, count, update,
   * delete and run of a thread goes through here, and the filter reaches the repository's queries.
   */
  authorize(action: string, value: Record<string, unknown>): Promise<AuthFilters | undefined> {
    return this.auth.authorize('threads', action, value);
  }

  /**
   * A new thread, or (`if_exists: do_nothing`) the existing one the caller may see. Every decision is taken before
   * any effect: the insert never changes an existing thread, an existing one the caller may not see is 409 "already
   * exists" with nothing written (as LangGraph Server answers it), and `supersteps` are a `threads:update` of the
   * thread, authorized as one before they are applied (on the new thread, or on the caller's existing one).
   */
  async create(tenantId: string, body: ThreadCreateBody): Promise<Record<string, unknown>> {
    const id = body.thread_id ?? randomUUID();
    const value: Record<string, unknown> = { thread_id: id, metadata: { ...(body.metadata ?? {}) }, if_exists: body.if_exists };
    const filters = await this.authorize('create', value);
    const metadata = (value.metadata as Record<string, unknown> | undefined) ?? {};
    const created = await this.sessions.insert(tenantId, id, metadata, null, body.ttl);
    if (!created) await this.checkExisting(tenantId, id, filters, body.if_exists);
    if (body.supersteps?.length) {
      // a create refused over its supersteps (no graph, a bad update) leaves no thread behind
      await this.applySupersteps(tenantId, id, body.supersteps).catch(async (e: unknown) => {
        if (created) await this.admission.deleteSession(id, tenantId);
        throw e;
      });
    }
    return this.wire(tenantId, await this.row(tenantId, id, created ? undefined : filters));
  }

  /** A create naming an existing thread: 409 unless `do_nothing` and the create's filter lets the caller see it. */
  private async checkExisting(tenantId: string, id: string, filters: AuthFilters | undefined, ifExists: ThreadCreateBody['if_exists']) {
    if (ifExists !== 'do_nothing' || !(await this.repo.get(tenantId, id, filters))) throw new ThreadExistsException(id);
  }

  /**
   * Supersteps of state updates (`threads.create({ supersteps })`): each superstep's updates (values, or a command,
   * as a node) applied together as one checkpoint, through the graph of the thread's `metadata.graph_id`. They are
   * an update of the thread: the `threads:update` filter must let the caller see it (404 otherwise, nothing applied).
   */
  private async applySupersteps(tenantId: string, id: string, supersteps: NonNullable<ThreadCreateBody['supersteps']>): Promise<void> {
    const row = await this.row(tenantId, id, await this.authorize('update', { thread_id: id }));
    await this.underLease(tenantId, id, () => this.applyHeld(tenantId, row, supersteps));
  }

  private async applyHeld(tenantId: string, row: ThreadRow, supersteps: NonNullable<ThreadCreateBody['supersteps']>): Promise<void> {
    const id = row.id;
    const name = this.graphName(row);
    const def = name ? this.registry.get(name) : undefined;
    if (!name || !def) throw new ThreadWithoutGraphException(id);
    if (!row.agent) await this.sessions.adoptAgent(tenantId, id, name);
    const steps = supersteps.map((s) => ({
      updates: s.updates.map((u) => ({ values: u.command ? new Command(u.command) : u.values, asNode: u.as_node })),
    }));
    try {
      await graphOf(def).bulkUpdateState(this.config(tenantId, id), steps);
    } catch (e) {
      if (e instanceof Error && /InvalidUpdate|as_node|Ambiguous|not found|node/i.test(`${e.name} ${e.message}`)) {
        throw new InvalidRequestException(e.message.slice(0, 500));
      }
      throw e;
    }
  }

  async get(tenantId: string, id: string): Promise<Record<string, unknown>> {
    return this.wire(tenantId, await this.row(tenantId, id, await this.authorize('read', { thread_id: id })));
  }

  /** Merges metadata into the thread's and, when given, sets its `ttl` (its expiry restarts from now). */
  async patch(tenantId: string, id: string, body: ThreadPatchBody): Promise<Record<string, unknown>> {
    const value: Record<string, unknown> = { thread_id: id, metadata: { ...(body.metadata ?? {}) } };
    await this.row(tenantId, id, await this.authorize('update', value));
    const patch = (value.metadata as Record<string, unknown> | undefined) ?? {};
    if (!(await this.sessions.patchMetadata(tenantId, id, patch))) throw new ThreadNotFoundException(id);
    if (body.ttl && !(await this.sessions.setTtl(tenantId, id, body.ttl))) throw new ThreadNotFoundException(id);
    return this.wire(tenantId, await this.row(tenantId, id));
  }

  /**
   * Prunes the threads now (`POST /threads/prune`): `delete` (as a DELETE of each) or `keep_latest` (each keeps its
   * latest checkpoint only). Each id is authorized as that thread's delete (or, for `keep_latest`, its update): ids
   * the caller may not see or change, unknown or expired ones, and threads with a run in flight are skipped
   * untouched and not counted. The answer counts the threads pruned.
   */
  async prune(tenantId: string, body: ThreadPruneBody): Promise<{ pruned_count: number }> {
    const strategy = body.strategy ?? 'delete';
    const action = strategy === 'delete' ? 'delete' : 'update';
    let pruned = 0;
    for (const id of new Set(body.thread_ids)) {
      if (!THREAD_ID.test(id)) continue;
      const access = await this.authorize(action, { thread_id: id }).then(
        (filters) => ({ filters }),
        (e: unknown) => {
          if (e instanceof DomainException && [403, 404].includes(e.status)) return null;
          throw e;
        },
      );
      if (!access || !(await this.repo.get(tenantId, id, access.filters))) continue;
      if ((await this.sessions.prune(tenantId, id, strategy)) === 'pruned') pruned++;
    }
    return { pruned_count: pruned };
  }

  /** Deletes the session, its messages, runs and checkpoints (409 while a run holds it). */
  async delete(tenantId: string, id: string): Promise<void> {
    await this.row(tenantId, id, await this.authorize('delete', { thread_id: id }));
    await this.admission.deleteSession(id, tenantId);
  }

  /** Deletes the threads whose metadata names the assistant that the caller may see (`DELETE /assistants/{id}?delete_threads=true`). */
  async deleteOfAssistant(tenantId: string, assistantId: string): Promise<string[]> {
    const metadata = { assistant_id: assistantId };
    const auth = await this.authorize('search', { metadata });
    const rows = await this.repo.search(tenantId, { metadata, auth }, {}, { limit: VALUES_SCAN_CAP, offset: 0 });
    for (const row of rows) await this.delete(tenantId, row.id);
    return rows.map((r) => r.id);
  }

  /**
   * A new thread with the same graph, metadata (plus its own `thread_id`) and checkpoints. Not refused while a run
   * holds the source (as LangGraph Server): the copy reads it, and writes only the new thread.
   */
  async copy(tenantId: string, id: string): Promise<Record<string, unknown>> {
    // absent or hidden by the auth filters: 409, as LangGraph Server answers a copy (a get is 404)
    const from = await this.row(tenantId, id, await this.authorize('read', { thread_id: id })).catch((e: unknown) => {
      throw e instanceof ThreadNotFoundException ? new CopySourceNotFoundException(id) : e;
    });
    const newId = randomUUID();
    // the copy is a new thread: the custom auth's create handler may refuse it or change its metadata
    const value: Record<string, unknown> = { thread_id: newId, metadata: { ...from.metadata, thread_id: newId } };
    await this.authorize('create', value);
    // the new session, the source's taint (it belongs to the thread: its copy inherits it) and its checkpoints, all
    // or nothing; the source is read in one snapshot, so a run writing it meanwhile is copied between two steps
    const metadata = (value.metadata as Record<string, unknown> | undefined) ?? {};
    if (!(await this.sessions.copy(tenantId, id, newId, metadata, from.agent))) throw new ThreadExistsException(newId);
    return this.get(tenantId, newId);
  }

  async search(tenantId: string, q: ThreadSearchBody): Promise<Array<Record<string, unknown>>> {
    const auth = await this.authorize('search', {
      metadata: q.metadata,
      status: q.status,
      values: q.values,
      limit: q.limit,
      offset: q.offset,
    });
    const filter: ThreadFilter = { metadata: q.metadata, status: q.status, ids: q.ids, auth };
    const sort = { by: q.sort_by, order: q.sort_order };
    let threads: Array<Record<string, unknown>>;
    if (q.values) {
      const rows = await this.repo.search(tenantId, filter, sort, { limit: VALUES_SCAN_CAP, offset: 0 });
      const all = await Promise.all(rows.map((r) => this.wire(tenantId, r)));
      threads = all.filter((t) => contains(t.values, q.values)).slice(q.offset, q.offset + q.limit);
    } else {
      const rows = await this.repo.search(tenantId, filter, sort, { limit: q.limit, offset: q.offset });
      threads = await Promise.all(rows.map((r) => this.wire(tenantId, r)));
    }
    const select = q.select;
    return select?.length ? threads.map((t) => Object.fromEntries(Object.entries(t).filter(([k]) => select.includes(k)))) : threads;
  }

  async count(tenantId: string, q: ThreadFilter & { values?: Record<string, unknown> | null }): Promise<number> {
    const auth = await this.authorize('search', { metadata: q.metadata, status: q.status, values: q.values });
    const f = { ...q, auth };
    if (!f.values) return this.repo.count(tenantId, f);
    const rows = await this.repo.search(tenantId, f, {}, { limit: VALUES_SCAN_CAP, offset: 0 });
    const all = await Promise.all(rows.map((r) => this.wire(tenantId, r)));
    return all.filter((t) => contains(t.values, f.values)).length;
  }

  /** The thread's state: the latest, or at a checkpoint (404 for a checkpoint the thread does not have). */
  async state(tenantId: string, id: string, at?: CheckpointRef | null, subgraphs = false): Promise<Record<string, unknown>> {
    const row = await this.row(tenantId, id, await this.authorize('read', { thread_id: id }));
    const graph = this.graphOf(row);
    if (!graph) {
      if (at?.checkpoint_id) throw new CheckpointNotFoundException(at.checkpoint_id);
      return emptyThreadState();
    }
    const snapshot = await graph.getState(await this.graphConfig(tenantId, row, at), { subgraphs });
    if (at?.checkpoint_id && !snapshot.createdAt) throw new CheckpointNotFoundException(at.checkpoint_id);
    return snapshot.createdAt ? toThreadState(snapshot, id) : emptyThreadState();
  }

  /** Checkpoints, newest first (`before` a checkpoint id, `metadata` filter, from `checkpoint`). */
  async history(tenantId: string, id: string, q: HistoryRequestBody): Promise<Array<Record<string, unknown>>> {
    const row = await this.row(tenantId, id, await this.authorize('read', { thread_id: id }));
    const graph = this.graphOf(row);
    if (!graph) return [];
    const beforeId = typeof q.before === 'string' ? q.before : (q.before?.configurable?.checkpoint_id as string | undefined);
    const before: RunnableConfig | undefined = beforeId ? { configurable: { checkpoint_id: beforeId } } : undefined;
    const out: Array<Record<string, unknown>> = [];
    const states = graph.getStateHistory(await this.graphConfig(tenantId, row, q.checkpoint), {
      limit: q.limit,
      before,
      filter: q.metadata ?? undefined,
    });
    for await (const s of states) out.push(toThreadState(s, id));
    return out;
  }

  /**
   * A state update through the thread's graph (`updateState`, as a node when `as_node` is given). A thread
   * without agent takes the graph of its metadata's `graph_id` and keeps it. Made under the thread's lease
   * (underLease): 409 while the thread has a run that has not ended (queued ones too, as LangGraph Server: the update
   * would race the run), and a run accepted meanwhile waits for the update as for an earlier turn.
   */
  async updateState(tenantId: string, id: string, body: StateUpdateBody): Promise<{ checkpoint: Record<string, unknown> | null }> {
    const row = await this.row(tenantId, id, await this.authorize('update', { thread_id: id, values: body.values }));
    return this.underLease(tenantId, id, () => this.updateHeld(tenantId, row, body));
  }

  private async updateHeld(
    tenantId: string,
    row: ThreadRow,
    body: StateUpdateBody,
  ): Promise<{ checkpoint: Record<string, unknown> | null }> {
    const id = row.id;
    const name = this.graphName(row);
    const def = name ? this.registry.get(name) : undefined;
    if (!name || !def) throw new ThreadWithoutGraphException(id);
    if (!row.agent) await this.sessions.adoptAgent(tenantId, id, name);
    const at: CheckpointRef = { ...(body.checkpoint ?? {}), ...(body.checkpoint_id ? { checkpoint_id: body.checkpoint_id } : {}) };
    let next: RunnableConfig;
    try {
      next = await graphOf(def).updateState(await this.graphConfig(tenantId, row, at), body.values ?? null, body.as_node ?? undefined);
    } catch (e) {
      // LangGraph refuses an ambiguous or unknown `as_node`, and values its channels cannot take
      if (e instanceof Error && /InvalidUpdate|as_node|Ambiguous|not found|node/i.test(`${e.name} ${e.message}`)) {
        throw new InvalidRequestException(e.message.slice(0, 500));
      }
      throw e;
    }
    await this.sessions.touch(tenantId, id);
    const checkpoint = checkpointOf(next, id);
    return { checkpoint: checkpoint ? { ...checkpoint } : null };
  }

  /**
   * `fn` while this update holds the thread's lease (SessionStore.holdForUpdate: taken only when no run holds it and
   * none is unfinished, decided in the statement that takes it), released when `fn` settles. 409 THREAD_BUSY
   * otherwise. The lease lapses like a run's (RUN_LOCK_MS) if this process dies meanwhile.
   */
  private async underLease<T>(tenantId: string, id: string, fn: () => Promise<T>): Promise<T> {
    const holder = randomUUID();
    const held = await this.sessions.holdForUpdate(tenantId, id, holder, this.appConfig.runLockMs);
    if (held === 'missing') throw new ThreadNotFoundException(id);
    if (held === 'busy') throw new ThreadBusyException(id);
    try {
      return await fn();
    } finally {
      await this.sessions.releaseLease(id, holder);
      // a turn waiting for the thread waits for its lease holder's `end` (TurnLease.take): the update's is published here
      this.events.end(holder);
    }
  }

  /** The thread as the API shows it: status, metadata, current values and interrupts. */
  private async wire(tenantId: string, row: ThreadRow): Promise<Record<string, unknown>> {
    const graph = this.graphOf(row);
    let snapshot: StateSnapshot | null = null;
    if (graph) snapshot = await graph.getState(this.config(tenantId, row.id));
    const hasState = Boolean(snapshot?.createdAt);
    return {
      thread_id: row.id,
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
      state_updated_at: (hasState && snapshot?.createdAt) || row.updatedAt.toISOString(),
      metadata: toWire(row.metadata),
      status: row.status,
      values: hasState && snapshot ? (toWire(snapshot.values) ?? {}) : {},
      interrupts: hasState && snapshot ? interruptsOf(snapshot) : {},
      config: {},
    };
  }

  /** The thread, 404 when it does not exist or the custom auth's filter hides it (as another tenant's would be). */
  private async row(tenantId: string, id: string, auth?: AuthFilters): Promise<ThreadRow> {
    const row = await this.repo.get(tenantId, id, auth);
    if (!row) throw new ThreadNotFoundException(id);
    return row;
  }

  private graphName(row: ThreadRow): string | null {
    const fromMetadata = row.metadata?.graph_id;
    return row.agent ?? (typeof fromMetadata === 'string' ? fromMetadata : null);
  }

  private graphOf(row: ThreadRow): LangGraphGraph | null {
    const name = this.graphName(row);
    const def = name ? this.registry.get(name) : undefined;
    return def ? graphOf(def) : null;
  }

  /**
   * The config a thread's graph is read and updated with: for a graph built per config (a factory export), the
   * configurable of the thread's assistant too, as its runs built it (the last run's assistant, in metadata).
   */
  private async graphConfig(tenantId: string, row: ThreadRow, at?: CheckpointRef | null): Promise<RunnableConfig> {
    const config = this.config(tenantId, row.id, at);
    const def = this.registry.get(this.graphName(row) ?? '');
    const assistantId = row.metadata?.assistant_id;
    if (!def || !(graphOf(def) instanceof FactoryGraph) || typeof assistantId !== 'string') return config;
    const assistant = await this.assistants.get(tenantId, assistantId).catch(() => null);
    const configurable = (assistant?.config as { configurable?: Record<string, unknown> } | undefined)?.configurable ?? {};
    return { configurable: { ...configurable, ...config.configurable } };
  }

  private config(tenantId: string, id: string, at?: CheckpointRef | null): RunnableConfig {
    const configurable: Record<string, unknown> = { thread_id: threadIdOf(tenantId, id), checkpoint_ns: at?.checkpoint_ns ?? '' };
    if (at?.checkpoint_id) configurable.checkpoint_id = at.checkpoint_id;
    if (at?.checkpoint_map) configurable.checkpoint_map = at.checkpoint_map;
    return { configurable };
  }
}
