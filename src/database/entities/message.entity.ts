import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export type MessageRole = 'user' | 'assistant';

/** The full conversation history; the agents' checkpointed state may hold a compacted window of it. */
@Entity({ name: 'messages' })
@Index(['tenantId', 'sessionId', 'seq'])
export class MessageEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  seq: string;

  @Column({ type: 'text', name: 'session_id' })
  sessionId: string;

  @Column({ type: 'text', name: 'tenant_id', default: 'default' })
  tenantId: string;

  @Column({ type: 'uuid', name: 'run_id', nullable: true })
  runId: string | null;

  @Column({ type: 'text' })
  role: MessageRole;

  @Column({ type: 'text' })
  content: string;

  @Column({ type: 'jsonb', default: {} })
  metadata: Record<string, unknown>;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;
}
