import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';

import { SessionNotFoundException } from '../core/errors';
import { ORCHESTRATOR_DATA_SOURCE } from '../database/data-source-name';
import { MessageEntity, SessionEntity } from '../database/entities';
import { rowsOf } from '../database/query-rows';

/**
 * The conversation store: sessions and their messages. (A session's turn lease — turns of one session never overlap, across processes
 * too — is taken and renewed by TurnLease through DurableRuns, and given back with the run's result.)
 */
@Injectable()
export class ConversationRepository {
  constructor(
    @InjectRepository(SessionEntity, ORCHESTRATOR_DATA_SOURCE) private readonly sessions: Repository<SessionEntity>,
    @InjectRepository(MessageEntity, ORCHESTRATOR_DATA_SOURCE) private readonly messages: Repository<MessageEntity>,
    @InjectDataSource(ORCHESTRATOR_DATA_SOURCE) private readonly dataSource: DataSource,
  ) {}

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

  /**
   * The session a turn arrives for, with the run it waits on, if any (a run paused for a tool approval:
   * `interrupted` and not finished; a new turn must not overtake it) — one statement for both.
   */
  async findForTurn(id: string, tenantId: string): Promise<{ session: SessionEntity; waitingRunId: string | null } | null> {
    const { entities, raw } = await this.sessions
      .createQueryBuilder('s')
      .addSelect(
        `(SELECT r.id FROM runs r WHERE r.session_id = s.id AND r.tenant_id = s.tenant_id AND r.status = 'interrupted' AND r.finished_at IS NULL LIMIT 1)`,
        'waiting_run_id',
      )
      .where('s.id = :id AND s.tenant_id = :tenantId', { id, tenantId })
      .getRawAndEntities<{ waiting_run_id: string | null }>();
    return entities[0] ? { session: entities[0], waitingRunId: raw[0]?.waiting_run_id ?? null } : null;
  }

  /** The tenant's sessions, most recently updated first. */
  async list(tenantId: string, limit: number, agent?: string): Promise<SessionEntity[]> {
    return this.sessions.find({ where: { tenantId, ...(agent ? { agent } : {}) }, order: { updatedAt: 'DESC' }, take: limit });
  }

  async history(id: string, tenantId: string): Promise<MessageEntity[]> {
    return this.messages.find({ where: { sessionId: id, tenantId }, order: { seq: 'ASC' } });
  }

  async delete(id: string, tenantId: string): Promise<void> {
    await this.sessions.delete({ id, tenantId });
  }
}
