import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';

import { ORCHESTRATOR_DATA_SOURCE } from '../database/data-source-name';
import { MessageEntity } from '../database/entities';
import { sessionTitle } from './session-title';

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

  /** Each session's title (its first user message, cut: sessionTitle); sessions without one are left out. */
  async titles(tenantId: string, sessionIds: string[]): Promise<Map<string, string>> {
    if (sessionIds.length === 0) return new Map();
    const rows = await this.messages
      .createQueryBuilder('m')
      .select('DISTINCT ON (m.session_id) m.session_id', 'session_id')
      .addSelect('left(m.content, 400)', 'content')
      .where({ tenantId, sessionId: In(sessionIds), role: 'user' })
      .orderBy('m.session_id')
      .addOrderBy('m.seq')
      .getRawMany<{ session_id: string; content: string }>();
    const titles = new Map<string, string>();
    for (const r of rows) {
      const title = sessionTitle(r.content);
      if (title) titles.set(r.session_id, title);
    }
    return titles;
  }
}
