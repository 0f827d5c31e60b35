import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

import type { ChatResult } from '../../core/chat-result';
import type { ModelCallRecord, RunError, RunIdentity } from '../../core/run-types';

export type { RunError } from '../../core/run-types';

/**
 * `interrupted`: waiting for an operator to approve or reject a tool call (TOOL_APPROVAL; `finished_at` unset),
 * or ended on a graph's own `interrupt()` / `interrupt_before|after` (LangGraph API; `finished_at` set), which a
 * later run resumes with a `command`.
 */
export const RUN_STATUSES = ['queued', 'running', 'interrupted', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const FINAL_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled'];

/**
 * Whether a run has ended, as every waiter means it (RunEnds.awaitEnd): a final status, or `interrupted` with
 * `finished_at` set (a graph's own interrupt: the run is over, a later run resumes its thread). A run paused for
 * tool approval (`finished_at` unset) has not ended: it goes on after the operator's decision. Neither has a run
 * handed back to its queue (`queued` again).
 */
export function hasEnded(run: { status: RunStatus; finishedAt: Date | null }): boolean {
  return FINAL_STATUSES.includes(run.status) || (run.status === 'interrupted' && run.finishedAt !== null);
}
export type RunMode = 'sync' | 'async';

export interface RunInput {
  message: string;
  contract_id?: string;
  metadata?: Record<string, unknown>;
  /** high-risk tools the caller allows after untrusted text entered the turn (tools/tool-consent.ts) */
  allow_tools?: string[];
  /** what the run's events carry besides progress and result (see events/graph-stream.ts) */
  stream?: { modes: string[]; subgraphs?: boolean; tokens?: boolean };
  /** a LangGraph API run's raw graph input (custom graphs take it instead of `message`) */
  input?: Record<string, unknown>;
  /** a LangGraph API run's `Command` (resume / update / goto) */
  command?: { resume?: unknown; update?: Record<string, unknown> | [string, unknown][]; goto?: string | string[] };
  /** nodes to pause before / after (`*`: all), as `graph.stream` takes them */
  interrupt_before?: string[] | '*';
  interrupt_after?: string[] | '*';
  /** `input: null` without a command: the graph continues from its checkpoint (after `interrupt_before|after`) */
  continue?: boolean;
  /** start from this checkpoint of the thread instead of its latest */
  checkpoint_id?: string;
  /** `after_seconds`: the run stays queued until this time (ISO 8601) */
  start_at?: string;
  /** a LangGraph API run's `config.configurable` (its assistant's merged with its own; the service's keys win) */
  configurable?: Record<string, unknown>;
  /** a LangGraph API run's `context` (the graph's runtime context; its assistant's merged with its own) */
  context?: Record<string, unknown>;
  /** who the run acts for (auth/run-identity.ts): set by the service from the request's principal, never by a client */
  identity?: RunIdentity;
  /** what the LangGraph API shows of the run (assistant_id, multitask_strategy, metadata, kwargs) */
  lg?: Record<string, unknown>;
}

/** The tool call an interrupted run waits on (see tools/tool-guard.ts), and the operator's decision once given. */
export interface PendingApproval {
  tool: string;
  args: Record<string, unknown>;
  tool_call_id: string;
  requested_at: string;
  decision?: { approved: boolean; at: string };
  /** the model calls made before the pause, counted again into the resumed run's usage */
  model_calls_before?: ModelCallRecord[];
}

@Entity({ name: 'runs' })
@Index(['tenantId', 'sessionId', 'createdAt'])
@Index(['status'])
export class RunEntity {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'text', name: 'session_id' })
  sessionId: string;

  @Column({ type: 'text', name: 'tenant_id', default: 'default' })
  tenantId: string;

  /** the user inside the tenant who asked for the run (a bearer token's user); null for API keys and crons */
  @Column({ type: 'text', nullable: true })
  owner: string | null;

  @Column({ type: 'text' })
  agent: string;

  @Column({ type: 'text' })
  mode: RunMode;

  @Column({ type: 'text' })
  status: RunStatus;

  @Column({ type: 'jsonb' })
  input: RunInput;

  /** the ChatResult, once the run has ended (also for agent-side failures, which carry `error`) */
  @Column({ type: 'jsonb', nullable: true })
  result: ChatResult | null;

  @Column({ type: 'jsonb', nullable: true })
  error: RunError | null;

  /** decision_log, tool_history, past_steps, plan, model_calls … (see the trace endpoint) */
  @Column({ type: 'jsonb', nullable: true })
  trace: Record<string, unknown> | null;

  @Column({ type: 'jsonb', nullable: true })
  progress: Record<string, unknown> | null;

  @Column({ type: 'jsonb', name: 'pending_approval', nullable: true })
  pendingApproval: PendingApproval | null;

  @Column({ type: 'int', name: 'llm_calls', default: 0 })
  llmCalls: number;

  @Column({ type: 'int', name: 'prompt_tokens', default: 0 })
  promptTokens: number;

  @Column({ type: 'int', name: 'completion_tokens', default: 0 })
  completionTokens: number;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  @Column({ type: 'boolean', name: 'cancel_requested', default: false })
  cancelRequested: boolean;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Column({ type: 'timestamptz', name: 'started_at', nullable: true })
  startedAt: Date | null;

  @Column({ type: 'timestamptz', name: 'finished_at', nullable: true })
  finishedAt: Date | null;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}
