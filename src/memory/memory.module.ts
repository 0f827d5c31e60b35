import { Module } from '@nestjs/common';

import { ConversationRepository } from './conversation.repository';

/** The conversation store (sessions and their messages); the summariser and memory node are plain functions beside it. */
@Module({ providers: [ConversationRepository], exports: [ConversationRepository] })
export class MemoryModule {}
