import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import { ORCHESTRATOR_DATA_SOURCE } from '../database/data-source-name';
import { MessageEntity, SessionEntity } from '../database/entities';

/**
 * The conversation as read back: a tenant's sessions and a session's messages. Sessions and messages are
 * written by the run store (runs/store: a turn's messages are recorded with its result).
 */
@Injectable()
export class ConversationRepository {
  constructor(
    @InjectRepository(SessionEntity, ORCHESTRATOR_DATA_SOURCE) private readonly sessions: Repository<SessionEntity>,
    @InjectRepository(MessageEntity, ORCHESTRATOR_DATA_SOURCE) private readonly messages: Repository<MessageEntity>,
  ) {}

  /** The tenant's sessions, most recently updated first. */
  async list(tenantId: string, limit: number, agent?: string): Promise<SessionEntity[]> {
    return this.sessions.find({ where: { tenantId, ...(agent ? { agent } : {}) }, order: { updatedAt: 'DESC' }, take: limit });
  }

  async history(id: string, tenantId: string): Promise<MessageEntity[]> {
    return this.messages.find({ where: { sessionId: id, tenantId }, order: { seq: 'ASC' } });
  }
}
