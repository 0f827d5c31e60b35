import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'sessions' })
export class SessionEntity {
  /** server-issued UUID or a client-chosen id (1–128 chars of [A-Za-z0-9._:-]); unique per tenant */
  @PrimaryColumn({ type: 'text' })
  id: string;

  @PrimaryColumn({ type: 'text', name: 'tenant_id', default: 'default' })
  tenantId: string;

  /** null for a thread created through the LangGraph API that has not run yet; its first run's agent is adopted */
  @Column({ type: 'text', nullable: true })
  agent: string | null;

  /** running summary of the conversation, maintained by agents with summarising memory */
  @Column({ type: 'text', nullable: true })
  summary: string | null;

  @Column({ type: 'jsonb', default: {} })
  metadata: Record<string, unknown>;

  /** the run currently holding the session's turn lease (turns of one session never overlap) */
  @Column({ type: 'uuid', name: 'active_run_id', nullable: true })
  activeRunId: string | null;

  @Column({ type: 'timestamptz', name: 'lease_expires_at', nullable: true })
  leaseExpiresAt: Date | null;

  /** the thread's TTL in minutes (docs/retention.md); null: kept until deleted */
  @Column({ type: 'double precision', name: 'ttl_minutes', nullable: true })
  ttlMinutes: number | null;

  /** what expiry does: `delete` the thread, or `keep_latest` (its latest checkpoint only) */
  @Column({ type: 'text', name: 'ttl_strategy', nullable: true })
  ttlStrategy: 'delete' | 'keep_latest' | null;

  /** last activity + TTL (kept by a trigger, see the thread-retention migration); null: does not expire */
  @Column({ type: 'timestamptz', name: 'expires_at', nullable: true })
  expiresAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}
