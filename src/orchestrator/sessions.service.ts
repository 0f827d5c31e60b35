import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';

import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';

import { SessionNotFoundException } from '../common/domain.exception';
import { MessageEntity, SessionEntity } from '../database/entities';
import { insertable, rowsOf } from '../database/query-rows';

const POLL_MS = 25;

/**
 * Sessions and their turn lease. A run takes the session's lease before its graph runs and gives it back
 * with its result, so turns of one session never overlap — across processes too, since the lease is a row
 * in Postgres. Turns of a session take the lease in the order they were accepted.
 */
@Injectable()
export class SessionsService {
  private readonly released = new EventEmitter().setMaxListeners(0);

  constructor(
    @InjectRepository(SessionEntity) private readonly sessions: Repository<SessionEntity>,
    @InjectRepository(MessageEntity) private readonly messages: Repository<MessageEntity>,
    private readonly dataSource: DataSource,
  ) {}

  /** A new session: a server-issued UUID, or the client's own id (taken as is; see `open`). */
  async create(agent: string, tenantId: string, metadata: Record<string, unknown> = {}, id: string = randomUUID()): Promise<SessionEntity> {
    // insert, not save: save() would first SELECT the id and wrap both in a transaction
    const session = this.sessions.create({
      id,
      agent,
      tenantId,
      metadata,
      summary: null,
      activeRunId: null,
      leaseExpiresAt: null,
    });
    await this.sessions.insert(insertable(session));
    return session;
  }

  /**
   * The tenant's session with a client-chosen id, started with `agent` when the tenant has never used the
   * id (two concurrent first turns with the same id end up in the same session).
   */
  async open(tenantId: string, id: string, agent: string): Promise<{ session: SessionEntity; created: boolean }> {
    const rows = rowsOf(
      await this.dataSource.query(
        `INSERT INTO sessions (tenant_id, id, agent) VALUES ($1, $2, $3) ON CONFLICT (tenant_id, id) DO NOTHING RETURNING id`,
        [tenantId, id, agent],
      ),
    );
    return { session: await this.get(id, tenantId), created: rows.length > 0 };
  }

  /** The tenant's session; another tenant's (or no) session is SESSION_NOT_FOUND. */
  async get(id: string, tenantId: string): Promise<SessionEntity> {
    const s = await this.sessions.findOneBy({ id, tenantId });
    if (!s) throw new SessionNotFoundException(id);
    return s;
  }

  async find(id: string, tenantId: string): Promise<SessionEntity | null> {
    return this.sessions.findOneBy({ id, tenantId });
  }

  async history(id: string, tenantId: string): Promise<MessageEntity[]> {
    return this.messages.find({ where: { sessionId: id, tenantId }, order: { seq: 'ASC' } });
  }

  async delete(id: string, tenantId: string): Promise<void> {
    await this.sessions.delete({ id, tenantId });
  }

  /**
   * Wait until this run holds the session's lease: no other run holds an unexpired one, and no queued run of
   * the session created before it is still unfinished (turns run in the order they were accepted). Returns false when `deadline` passes first.
   */
  async acquireLease(sessionId: string, runId: string, leaseMs: number, deadline: number, signal?: AbortSignal): Promise<boolean> {
    for (;;) {
      const rows = rowsOf(
        await this.dataSource.query(
          `UPDATE sessions s SET active_run_id = $2, lease_expires_at = now() + ($3 || ' milliseconds')::interval
          WHERE s.id = $1 AND s.tenant_id = (SELECT tenant_id FROM runs WHERE id = $2)
            AND (s.active_run_id IS NULL OR s.active_run_id = $2 OR s.lease_expires_at < now())
            AND NOT EXISTS (
              SELECT 1 FROM runs r, runs me
               WHERE me.id = $2 AND r.session_id = $1 AND r.tenant_id = me.tenant_id AND r.id <> $2 AND r.status IN ('queued', 'running', 'interrupted')
                 AND (r.created_at, r.id) < (me.created_at, me.id))
          RETURNING s.id`,
          [sessionId, runId, String(leaseMs)],
        ),
      );
      if (rows.length > 0) return true;
      if (Date.now() >= deadline || signal?.aborted) return false;
      await this.waitForRelease(sessionId, Math.min(POLL_MS * 4, Math.max(1, deadline - Date.now())));
    }
  }

  /** Give the lease back (also done inside the result transaction by RunRecords). */
  async releaseLease(sessionId: string, runId: string): Promise<void> {
    await this.dataSource.query(`UPDATE sessions SET active_run_id = NULL, lease_expires_at = NULL WHERE id = $1 AND active_run_id = $2`, [
      sessionId,
      runId,
    ]);
    this.notifyReleased(sessionId);
  }

  notifyReleased(sessionId: string): void {
    this.released.emit(sessionId);
  }

  private waitForRelease(sessionId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.released.off(sessionId, done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.released.once(sessionId, done);
    });
  }
}
