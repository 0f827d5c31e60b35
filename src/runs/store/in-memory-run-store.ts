import { type AuthFilters, matchesFilters } from '../../auth/auth-filters';
import { RunNotFoundException, SessionBusyException, SessionNotFoundException } from '../../core/errors';
import type { RecordedToolCall, ToolLedger } from '../../core/tool-ledger';
import { type PendingApproval, RunEntity, type RunStatus, SessionEntity } from '../../database/entities';
import type { ThreadTaint } from '../../tools/thread-taint';
import type { AttemptCallRecord, RunUsage } from '../persistent-usage';
import { type IdempotencyKey, RunLedger } from './run-ledger';
import {
  holdsLeaseAt,
  isAwaitingApproval,
  isDue,
  isFinalStatus,
  isLeaseFree,
  isLive,
  isReleasableBy,
  isStartable,
  isUnfinished,
} from './run-rules';
import { type NewRun, type ReconcileCandidate, type RunEnd, RunStore, type StoppedRun } from './run-store';
import { SessionStore, type SweepResult, type TenantReset, type TurnSession } from './session-store';
import type { ThreadTtl, TtlStrategy } from './thread-retention';

interface Message {
  tenantId: string;
  sessionId: string;
  runId: string;
  role: string;
  content: string;
}

/**
 * The run store in memory, for unit tests of the orchestration (admission, leases, hand-back, cancel, pause,
 * idempotency, recovery) in milliseconds: the same three ports and the same rules as the Postgres store
 * (run-rules.ts), each transition atomic (synchronous between awaits). `now` can be moved to let leases lapse.
 */
export class InMemoryRunState {
  readonly runs = new Map<string, RunEntity>();
  readonly sessions = new Map<string, SessionEntity>();
  readonly messages: Message[] = [];
  readonly usage = new Map<string, RunUsage>();
  readonly ledgers = new Map<string, Map<string, RecordedToolCall>>();
  readonly keys = new Map<string, { runId: string; hash: string }>();
  /** thread taint by `tenant\0session` */
  readonly taints = new Map<string, ThreadTaint>();
  private clock = 0;
  /** added to the wall clock: a test moves time forward to let a lease lapse */
  skewMs = 0;

  readonly runStore = new InMemoryRunStore(this);
  readonly sessionStore = new InMemorySessionStore(this);
  readonly ledger = new InMemoryRunLedger(this);

  now(): Date {
    return new Date(Date.now() + this.skewMs);
  }

  /** created_at ordering: strictly increasing, like (created_at, id) in Postgres */
  tick(): Date {
    this.clock = Math.max(this.clock + 1, this.now().getTime());
    return new Date(this.clock);
  }

  session(tenantId: string, id: string): SessionEntity | undefined {
    return this.sessions.get(`${tenantId}:${id}`);
  }

  // --- the rules (run-rules.ts) ---

  unfinished(r: RunEntity): boolean {
    return isUnfinished(r);
  }

  leaseFree(s: SessionEntity): boolean {
    return isLeaseFree(s, this.now());
  }

  holdsLease(s: SessionEntity | undefined, runId: string): boolean {
    return holdsLeaseAt(s, runId, this.now());
  }

  firstInLine(s: SessionEntity, me?: RunEntity): boolean {
    return ![...this.runs.values()].some(
      (r) =>
        r.sessionId === s.id &&
        r.tenantId === s.tenantId &&
        this.unfinished(r) &&
        (!me || (r.id !== me.id && (r.createdAt < me.createdAt || (+r.createdAt === +me.createdAt && r.id < me.id)))),
    );
  }

  startable(r: RunEntity): boolean {
    return isStartable(r);
  }

  due(r: RunEntity): boolean {
    return isDue(r, this.now());
  }

  takeLease(s: SessionEntity, runId: string, ms: number): void {
    s.activeRunId = runId;
    s.leaseExpiresAt = new Date(this.now().getTime() + ms);
    s.updatedAt = this.now();
  }

  release(s: SessionEntity | undefined, runId: string): void {
    if (s && isReleasableBy(s, runId)) {
      s.activeRunId = null;
      s.leaseExpiresAt = null;
      s.updatedAt = this.now();
    }
  }

  newSession(tenantId: string, id: string, agent: string | null, metadata: Record<string, unknown> = {}): SessionEntity {
    const s = Object.assign(new SessionEntity(), {
      id,
      tenantId,
      agent,
      summary: null,
      metadata,
      activeRunId: null,
      leaseExpiresAt: null,
      ttlMinutes: null,
      ttlStrategy: null,
      expiresAt: null,
      createdAt: this.now(),
      updatedAt: this.now(),
    });
    this.sessions.set(`${tenantId}:${id}`, s);
    return s;
  }

  newRun({ sessionMetadata: _session, ...run }: NewRun, status: RunStatus = 'queued'): RunEntity {
    const at = this.tick();
    const r = Object.assign(new RunEntity(), {
      ...run,
      owner: run.owner ?? null,
      status,
      result: null,
      error: null,
      trace: null,
      progress: null,
      pendingApproval: null,
      llmCalls: 0,
      promptTokens: 0,
      completionTokens: 0,
      attempts: status === 'running' ? 1 : 0,
      cancelRequested: false,
      createdAt: at,
      startedAt: status === 'running' ? at : null,
      finishedAt: null,
      updatedAt: at,
    });
    this.runs.set(r.id, r);
    return r;
  }

  copy<T extends object>(x: T): T {
    return Object.assign(Object.create(Object.getPrototypeOf(x) as object) as T, structuredClone({ ...x }));
  }
}

class InMemoryRunStore extends RunStore {
  constructor(private readonly s: InMemoryRunState) {
    super();
  }

  async create(run: NewRun): Promise<RunEntity> {
    return this.s.copy(this.s.newRun(run));
  }

  async createInNewSession(run: NewRun): Promise<RunEntity> {
    this.s.newSession(run.tenantId, run.sessionId, run.agent, run.sessionMetadata);
    return this.create(run);
  }

  async createStarted(run: NewRun, leaseMs: number, newSession = false, sessionMetadata?: Record<string, unknown>): Promise<RunEntity> {
    if (newSession) {
      const session = this.s.newSession(run.tenantId, run.sessionId, run.agent, run.sessionMetadata);
      this.s.takeLease(session, run.id, leaseMs);
      return this.s.copy(this.s.newRun(run, 'running'));
    }
    const session = this.s.session(run.tenantId, run.sessionId);
    const free = !!session && this.s.leaseFree(session) && this.s.firstInLine(session);
    if (free) {
      this.s.takeLease(session, run.id, leaseMs);
      if (sessionMetadata) session.metadata = { ...session.metadata, ...sessionMetadata };
      session.agent ??= run.agent;
    }
    return this.s.copy(this.s.newRun(run, free ? 'running' : 'queued'));
  }

  async createExclusive(run: NewRun, start?: { leaseMs: number; sessionMetadata?: Record<string, unknown> }): Promise<RunEntity | null> {
    const session = this.s.session(run.tenantId, run.sessionId);
    if (!session) throw new SessionNotFoundException(run.sessionId);
    if (!this.s.firstInLine(session)) return null;
    return start ? this.createStarted(run, start.leaseMs, false, start.sessionMetadata) : this.create(run);
  }

  async createSuperseding(run: NewRun): Promise<{ run: RunEntity; stopped: StoppedRun[] }> {
    if (!this.s.session(run.tenantId, run.sessionId)) throw new SessionNotFoundException(run.sessionId);
    const stopped: StoppedRun[] = [];
    for (const r of this.s.runs.values()) {
      if (r.tenantId !== run.tenantId || r.sessionId !== run.sessionId || !this.s.unfinished(r)) continue;
      r.cancelRequested = true;
      r.updatedAt = this.s.now();
      if (r.status === 'running') stopped.push({ id: r.id, outcome: 'flagged' });
      else {
        Object.assign(r, { status: 'cancelled', finishedAt: this.s.now() });
        r.error = { code: 'CANCELLED', message: 'cancelled by a newer run (multitask)' };
        stopped.push({ id: r.id, outcome: 'cancelled' });
      }
    }
    return { run: await this.create(run), stopped };
  }

  async leaseAndStart(id: string, leaseMs: number, maxAttempts: number): Promise<{ run: RunEntity; hasCheckpoint: boolean } | null> {
    const me = this.s.runs.get(id);
    const session = me && this.s.session(me.tenantId, me.sessionId);
    if (!me || !session || !this.s.leaseFree(session) || !this.s.startable(me) || me.attempts >= maxAttempts || !this.s.due(me))
      return null;
    if (!this.s.firstInLine(session, me)) return null;
    this.s.takeLease(session, me.id, leaseMs);
    this.start(me);
    return { run: this.s.copy(me), hasCheckpoint: false };
  }

  private start(r: RunEntity): void {
    r.status = 'running';
    r.startedAt ??= this.s.now();
    r.attempts += 1;
    r.updatedAt = this.s.now();
  }

  async get(id: string, what: 'job' | 'run' = 'job'): Promise<RunEntity> {
    const r = this.s.runs.get(id);
    if (!r) throw new RunNotFoundException(id, what);
    return this.s.copy(r);
  }

  async getForTenant(id: string, tenantId: string, what: 'job' | 'run' = 'job'): Promise<RunEntity> {
    const r = this.s.runs.get(id);
    if (!r || r.tenantId !== tenantId) throw new RunNotFoundException(id, what);
    return this.s.copy(r);
  }

  async listBySession(sessionId: string, tenantId: string): Promise<RunEntity[]> {
    return [...this.s.runs.values()].filter((r) => r.sessionId === sessionId && r.tenantId === tenantId).map((r) => this.s.copy(r));
  }

  async latestFinished(sessionId: string, tenantId: string): Promise<RunEntity | null> {
    const done = (await this.listBySession(sessionId, tenantId)).filter((r) => r.status === 'completed' || r.status === 'failed');
    return done.sort((a, b) => +b.finishedAt! - +a.finishedAt!)[0] ?? null;
  }

  async markRunning(id: string): Promise<RunEntity | null> {
    const r = this.s.runs.get(id);
    if (!r || !this.s.startable(r)) return null;
    this.start(r);
    return this.s.copy(r);
  }

  async setProgress(id: string, progress: Record<string, unknown>): Promise<void> {
    const r = this.s.runs.get(id);
    if (r?.status === 'running') r.progress = progress;
  }

  async finish(run: RunEntity, end: RunEnd): Promise<boolean> {
    const r = this.s.runs.get(run.id);
    if (!r || isFinalStatus(r.status) || r.attempts !== run.attempts) return false;
    await end.checkpoint?.write();
    Object.assign(r, {
      status: end.status,
      result: end.result,
      error: end.error,
      trace: end.trace,
      llmCalls: end.usage.calls,
      promptTokens: end.usage.promptTokens,
      completionTokens: end.usage.completionTokens,
      finishedAt: this.s.now(),
      updatedAt: this.s.now(),
    });
    if (end.messages) {
      const m = { tenantId: r.tenantId, sessionId: r.sessionId, runId: r.id };
      this.s.messages.push(
        { ...m, role: 'user', content: end.messages.user },
        { ...m, role: 'assistant', content: end.messages.assistant },
      );
    }
    const session = this.s.session(r.tenantId, r.sessionId);
    this.s.release(session, r.id);
    if (session && end.summary) session.summary = end.summary;
    return true;
  }

  async requestCancel(id: string): Promise<{ outcome: 'cancelled' | 'flagged' | 'ended'; status: RunStatus }> {
    const r = this.s.runs.get(id);
    if (!r) throw new RunNotFoundException(id, 'job');
    if (r.status === 'queued') {
      Object.assign(r, { status: 'cancelled', cancelRequested: true, finishedAt: this.s.now() });
      r.error = { code: 'CANCELLED', message: 'cancelled before it started' };
      return { outcome: 'cancelled', status: 'cancelled' };
    }
    if (r.status === 'running') {
      r.cancelRequested = true;
      return { outcome: 'flagged', status: 'running' };
    }
    return { outcome: 'ended', status: r.status };
  }

  async handBack(sessionId: string, runId: string, attempt: number): Promise<void> {
    const r = this.s.runs.get(runId);
    if (!r || r.attempts !== attempt) return; // another attempt runs it now
    if (r.status === 'running') Object.assign(r, { status: 'queued', attempts: Math.max(r.attempts - 1, 0), updatedAt: this.s.now() });
    const session = this.s.session(r.tenantId, sessionId);
    if (session?.activeRunId === runId) this.s.release(session, runId);
  }

  async pause(runId: string, attempt: number, pending: PendingApproval, progress: Record<string, unknown>): Promise<boolean> {
    const r = this.s.runs.get(runId);
    if (r?.status !== 'running' || r.attempts !== attempt) return false;
    Object.assign(r, { status: 'interrupted', pendingApproval: pending, progress, updatedAt: this.s.now() });
    const session = this.s.session(r.tenantId, r.sessionId);
    if (session?.activeRunId === runId) this.s.release(session, runId);
    return true;
  }

  async consumeDecision(runId: string): Promise<void> {
    const r = this.s.runs.get(runId);
    if (r?.status === 'running') r.pendingApproval = null;
  }

  async decide(runId: string, approved: boolean): Promise<boolean> {
    const r = this.s.runs.get(runId);
    if (r?.status !== 'interrupted' || !r.pendingApproval) return false;
    r.pendingApproval = { ...r.pendingApproval, decision: { approved, at: this.s.now().toISOString() } };
    Object.assign(r, { status: 'queued', attempts: Math.max(r.attempts - 1, 0), updatedAt: this.s.now() });
    return true;
  }

  async discard(runId: string, session: { id: string; tenantId: string } | null): Promise<void> {
    this.s.runs.delete(runId);
    if (session && !(await this.listBySession(session.id, session.tenantId)).length)
      this.s.sessions.delete(`${session.tenantId}:${session.id}`);
  }

  async deleteRun(tenantId: string, _checkpointThread: string, runId: string): Promise<boolean> {
    const r = this.s.runs.get(runId);
    if (!r || r.tenantId !== tenantId) return false;
    this.s.runs.delete(runId);
    return true;
  }

  async unfinished(graceMs: number, syncGraceMs: number, limit = 500): Promise<ReconcileCandidate[]> {
    const now = this.s.now().getTime();
    return [...this.s.runs.values()]
      .filter((r) => isLive(r) && +r.createdAt < now - graceMs)
      .filter((r) => r.mode === 'async' || +r.createdAt < now - syncGraceMs)
      .filter((r) => !this.s.holdsLease(this.s.session(r.tenantId, r.sessionId), r.id))
      .slice(0, limit)
      .map((r) => ({ id: r.id, status: r.status as 'queued' | 'running', attempts: r.attempts }));
  }

  async nextOfSession(sessionId: string, tenantId: string): Promise<string | null> {
    const queued = [...this.s.runs.values()].filter(
      (r) => r.sessionId === sessionId && r.tenantId === tenantId && r.status === 'queued' && !r.cancelRequested,
    );
    return queued.sort((a, b) => +a.createdAt - +b.createdAt)[0]?.id ?? null;
  }

  async orphans(olderThanMs: number): Promise<RunEntity[]> {
    const before = this.s.now().getTime() - olderThanMs;
    return [...this.s.runs.values()]
      .filter((r) => isLive(r) && +r.updatedAt < before)
      .filter((r) => !this.s.holdsLease(this.s.session(r.tenantId, r.sessionId), r.id))
      .map((r) => this.s.copy(r));
  }
}

class InMemorySessionStore extends SessionStore {
  constructor(private readonly s: InMemoryRunState) {
    super();
  }

  async open(
    tenantId: string,
    id: string,
    agent: string,
    metadata?: Record<string, unknown>,
  ): Promise<{ session: SessionEntity; created: boolean }> {
    const known = this.s.session(tenantId, id);
    const session = known ?? this.s.newSession(tenantId, id, agent, metadata);
    return { session: this.s.copy(session), created: !known };
  }

  async insert(
    tenantId: string,
    id: string,
    metadata: Record<string, unknown>,
    agent: string | null = null,
    ttl?: ThreadTtl | null,
  ): Promise<boolean> {
    if (this.s.session(tenantId, id)) return false;
    const session = this.s.newSession(tenantId, id, agent, metadata);
    if (ttl) this.applyTtl(session, ttl);
    return true;
  }

  async get(id: string, tenantId: string): Promise<SessionEntity> {
    const session = await this.find(id, tenantId);
    if (!session) throw new SessionNotFoundException(id);
    return session;
  }

  async find(id: string, tenantId: string): Promise<SessionEntity | null> {
    const session = this.s.session(tenantId, id);
    return session && !this.expiredForDelete(session) ? this.s.copy(session) : null;
  }

  /** run-rules `expiredForDelete` on a row in hand. */
  private expiredForDelete(x: SessionEntity): boolean {
    return !!x.expiresAt && x.expiresAt <= this.s.now() && x.ttlStrategy !== 'keep_latest' && this.s.leaseFree(x);
  }

  private applyTtl(x: SessionEntity, ttl: ThreadTtl): void {
    x.ttlMinutes = ttl.minutes;
    x.ttlStrategy = ttl.strategy;
    x.updatedAt = this.s.now();
    x.expiresAt = new Date(x.updatedAt.getTime() + ttl.minutes * 60_000);
  }

  async setTtl(tenantId: string, id: string, ttl: ThreadTtl): Promise<boolean> {
    const session = this.s.session(tenantId, id);
    if (!session || this.expiredForDelete(session)) return false;
    this.applyTtl(session, ttl);
    return true;
  }

  async sweepExpired(limit: number): Promise<SweepResult | null> {
    const now = this.s.now();
    const due = [...this.s.sessions.values()]
      .filter((x) => x.expiresAt && x.expiresAt <= now && this.s.leaseFree(x) && this.s.firstInLine(x))
      .slice(0, limit);
    const result: SweepResult = { deleted: [], pruned: [] };
    for (const x of due) {
      if (x.ttlStrategy === 'keep_latest') {
        x.expiresAt = null;
        result.pruned.push({ tenantId: x.tenantId, id: x.id });
      } else {
        this.forget(x.tenantId, x.id);
        result.deleted.push({ tenantId: x.tenantId, id: x.id });
      }
    }
    return result;
  }

  async prune(tenantId: string, id: string, strategy: TtlStrategy): Promise<'pruned' | 'busy' | 'missing'> {
    const session = this.s.session(tenantId, id);
    if (!session || this.expiredForDelete(session)) return 'missing';
    if (!this.s.leaseFree(session) || !this.s.firstInLine(session)) return 'busy';
    if (strategy === 'delete') this.forget(tenantId, id);
    return 'pruned';
  }

  async list(tenantId: string, limit: number, agent?: string, auth?: AuthFilters): Promise<SessionEntity[]> {
    return [...this.s.sessions.values()]
      .filter((x) => x.tenantId === tenantId && !this.expiredForDelete(x))
      .filter((x) => (!agent || x.agent === agent) && matchesFilters(x.metadata, auth))
      .sort((a, b) => +b.updatedAt - +a.updatedAt)
      .slice(0, limit)
      .map((x) => this.s.copy(x));
  }

  async findForTurn(id: string, tenantId: string): Promise<TurnSession | null> {
    const session = await this.find(id, tenantId);
    if (!session) return null;
    const runs = [...this.s.runs.values()].filter((r) => r.sessionId === id && r.tenantId === tenantId);
    const waiting = runs.find(isAwaitingApproval);
    const scheduled = runs.find((r) => this.s.startable(r) && !this.s.due(r));
    return { session, waitingRunId: waiting?.id ?? null, scheduledRunId: scheduled?.id ?? null };
  }

  async patchMetadata(tenantId: string, id: string, metadata: Record<string, unknown>): Promise<boolean> {
    const session = this.s.session(tenantId, id);
    if (!session) return false;
    session.metadata = { ...session.metadata, ...metadata };
    return true;
  }

  async recordRunAssistant(tenantId: string, id: string, assistantId: string, graphId: string): Promise<void> {
    const session = this.s.session(tenantId, id);
    if (!session) return;
    session.metadata = { ...session.metadata, assistant_id: assistantId, graph_id: graphId };
    session.agent ??= graphId;
  }

  async adoptAgent(tenantId: string, id: string, agent: string): Promise<string | null> {
    const session = this.s.session(tenantId, id);
    if (!session) return null;
    session.agent ??= agent;
    return session.agent;
  }

  async touch(tenantId: string, id: string): Promise<void> {
    const session = this.s.session(tenantId, id);
    if (session) session.updatedAt = this.s.now();
  }

  async delete(id: string, tenantId: string): Promise<void> {
    const session = this.s.session(tenantId, id);
    if (!session) throw new SessionNotFoundException(id);
    if (!this.s.leaseFree(session)) throw new SessionBusyException(id);
    this.forget(tenantId, id);
  }

  private forget(tenantId: string, id: string): void {
    this.s.sessions.delete(`${tenantId}:${id}`);
    this.s.taints.delete(`${tenantId}\0${id}`);
    for (const r of [...this.s.runs.values()]) if (r.sessionId === id && r.tenantId === tenantId) this.s.runs.delete(r.id);
  }

  async resetTenant(tenantId: string, what: TenantReset): Promise<void> {
    if (what.runs) for (const r of [...this.s.runs.values()]) if (r.tenantId === tenantId) this.s.runs.delete(r.id);
    if (!what.sessions) return;
    for (const x of [...this.s.sessions.values()]) if (x.tenantId === tenantId) this.forget(tenantId, x.id);
  }

  async copy(tenantId: string, fromId: string, toId: string, metadata: Record<string, unknown>, agent: string | null): Promise<boolean> {
    if (this.s.session(tenantId, toId)) return false;
    this.s.newSession(tenantId, toId, agent, metadata);
    await this.copyTaint(tenantId, fromId, toId);
    return true;
  }

  async holdForUpdate(tenantId: string, id: string, holder: string, leaseMs: number): Promise<'held' | 'busy' | 'missing'> {
    const session = this.s.session(tenantId, id);
    if (!session) return 'missing';
    if (!this.s.leaseFree(session) || !this.s.firstInLine(session)) return 'busy';
    this.s.takeLease(session, holder, leaseMs);
    return 'held';
  }

  async inflight(tenantId: string, id: string): Promise<string[]> {
    return [...this.s.runs.values()]
      .filter((r) => r.tenantId === tenantId && r.sessionId === id && this.s.unfinished(r))
      .sort((a, b) => +a.createdAt - +b.createdAt)
      .map((r) => r.id);
  }

  async tryLease(sessionId: string, runId: string, leaseMs: number): Promise<boolean> {
    const me = this.s.runs.get(runId);
    const session = me && this.s.session(me.tenantId, sessionId);
    if (!me || !session || !this.s.leaseFree(session) || !this.s.startable(me) || !this.s.firstInLine(session, me)) return false;
    this.s.takeLease(session, runId, leaseMs);
    return true;
  }

  async leaseHolder(sessionId: string, tenantId: string): Promise<{ runId: string; remainingMs: number } | null> {
    const session = this.s.session(tenantId, sessionId);
    if (!session?.activeRunId || !this.s.holdsLease(session, session.activeRunId)) return null;
    return { runId: session.activeRunId, remainingMs: +session.leaseExpiresAt! - +this.s.now() };
  }

  async renewLease(sessionId: string, runId: string, attempt: number, leaseMs: number): Promise<boolean> {
    const session = [...this.s.sessions.values()].find((s) => s.id === sessionId && s.activeRunId === runId);
    if (!session || this.s.runs.get(runId)?.attempts !== attempt) return false;
    session.leaseExpiresAt = new Date(+this.s.now() + leaseMs);
    return true;
  }

  async releaseLease(sessionId: string, runId: string): Promise<void> {
    const session = [...this.s.sessions.values()].find((s) => s.id === sessionId && s.activeRunId === runId);
    if (session) this.s.release(session, runId);
  }

  async taintOf(tenantId: string, id: string, opts: { digest?: boolean } = {}): Promise<ThreadTaint | null> {
    const t = this.s.taints.get(`${tenantId}\0${id}`);
    return t ? { ...t, sources: [...t.sources], digest: opts.digest === false ? null : (t.digest?.slice() ?? null) } : null;
  }

  async recordTaint(tenantId: string, id: string, runId: string, taint: ThreadTaint): Promise<void> {
    if (!this.s.session(tenantId, id)) return;
    const key = `${tenantId}\0${id}`;
    const known = this.s.taints.get(key);
    const digest =
      known?.digest && taint.digest ? known.digest.map((b, i) => b | (taint.digest?.[i] ?? 0)) : (taint.digest ?? known?.digest);
    this.s.taints.set(key, {
      sources: [...new Set([...(known?.sources ?? []), ...taint.sources])],
      digest: digest?.slice() ?? null,
      opaque: Boolean(known?.opaque || taint.opaque),
      since: known?.since ?? this.s.now(),
      runId: known ? (known.runId ?? null) : runId,
    });
  }

  async copyTaint(tenantId: string, fromId: string, toId: string): Promise<void> {
    const known = this.s.taints.get(`${tenantId}\0${fromId}`);
    if (known) this.s.taints.set(`${tenantId}\0${toId}`, { ...known, sources: [...known.sources], digest: known.digest?.slice() ?? null });
  }
}

class InMemoryRunLedger extends RunLedger {
  constructor(private readonly s: InMemoryRunState) {
    super();
  }

  toolLedger(runId: string): ToolLedger {
    const calls = this.s.ledgers.get(runId) ?? new Map<string, RecordedToolCall>();
    this.s.ledgers.set(runId, calls);
    return {
      lookup: async (id) => calls.get(id) ?? null,
      record: async (id, _name, _args, result) => void (calls.has(id) || calls.set(id, result)),
    };
  }

  async saveUsage(runId: string, u: RunUsage): Promise<void> {
    const r = this.s.runs.get(runId);
    if (r?.status !== 'running') return;
    Object.assign(r, { llmCalls: u.totals.calls, promptTokens: u.totals.promptTokens, completionTokens: u.totals.completionTokens });
    this.s.usage.set(runId, structuredClone(u));
  }

  async modelCalls(runId: string): Promise<AttemptCallRecord[]> {
    return this.s.usage.get(runId)?.calls ?? [];
  }

  async findByIdempotencyKey(key: IdempotencyKey): Promise<{ id: string; requestHash: string | null } | null> {
    const k = this.s.keys.get(keyId(key));
    return k && this.s.runs.has(k.runId) ? { id: k.runId, requestHash: k.hash } : null;
  }

  async claimIdempotencyKey(runId: string, key: IdempotencyKey, requestHash: string): Promise<boolean> {
    const r = this.s.runs.get(runId);
    if (!r) return false;
    const id = keyId({ ...key, tenantId: r.tenantId });
    const held = this.s.keys.get(id);
    if (held && this.s.runs.has(held.runId)) return false;
    this.s.keys.set(id, { runId, hash: requestHash });
    return true;
  }

  async releaseIdempotencyKey(runId: string): Promise<void> {
    for (const [k, v] of this.s.keys) if (v.runId === runId) this.s.keys.delete(k);
  }

  async dueWebhooks(): Promise<string[]> {
    return [];
  }

  async claimWebhook(): Promise<number | null> {
    return null;
  }

  async settleWebhook(): Promise<'sent' | 'gave_up' | null> {
    return null;
  }
}

/** One map key per (tenant, principal, key), as the unique index of the Postgres store. */
function keyId(k: IdempotencyKey): string {
  return JSON.stringify([k.tenantId, k.principal, k.key]);
}
