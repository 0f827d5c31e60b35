import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import { ORCHESTRATOR_DATA_SOURCE } from '../database/data-source-name';
import { MessageEntity } from '../database/entities';

/**
 * The conversation as read back: a session's messages. Messages are written by the run store with the turn's
 * result (runs/store); sessions are read and written there too (SessionStore).
 */
@Injectable()
export class ConversationRepository {
  constructor(@InjectRepository(MessageEntity, ORCHESTRATOR_DATA_SOURCE) private readonly messages: Repository<MessageEntity>) {}

  async history(id: string, tenantId: string): Promise<MessageEntity[]> {
    return this.messages.find({ where: { sessionId: id, tenantId }, order: { seq: 'ASC' } });
  }
}
