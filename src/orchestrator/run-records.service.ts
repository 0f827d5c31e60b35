import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, In, Repository } from 'typeorm';
import { RunNotFoundException } from '../common/domain.exception';
import { FINAL_STATUSES, MessageEntity, RunEntity, RunError, RunInput, RunMode, RunStatus } from '../database/entities';
import type { ChatResult } from './chat-result';

export interface NewRun {
  id: string;
  sessionId: string;
  tenantId: string;
  agent: string;
  mode: RunMode;
  input: RunInput;
}

export interface RunEnd {
  status: Extract<RunStatus, 'completed' | 'failed' | 'cancelled'>;
  result: ChatResult | null;
  error: RunError | null;
  trace: Record<string, unknown> | null;
  usage: { calls: number; promptTokens: number; completionTokens: number };
  /** the turn's two messages, recorded with the result (none when the turn never ran) */
  messages: { user: string; assistant: string } | null;
}

/** Run rows: written before a run starts, updated as it runs, finished together with its messages. */
@Injectable()
export class RunRecords {
  constructor(
    @InjectRepository(RunEntity) private readonly runs: Repository<RunEntity>,
    private readonly dataSource: DataSource,
  ) {}

  async create(run: NewRun): Promise<RunEntity> {
    return this.runs.save(this.runs.create({ ...run, status: 'queued' }));
  }

  async get(id: string, what: 'job' | 'run' = 'job'): Promise<RunEntity> {
    const run = await this.runs.findOneBy({ id });
    if (!run) throw new RunNotFoundException(id, what);
    return run;
  }

  async listBySession(sessionId: string): Promise<RunEntity[]> {
    return this.runs.find({ where: { sessionId }, order: { createdAt: 'ASC' } });
  }

  async latestFinished(sessionId: string): Promise<RunEntity | null> {
    return this.runs.findOne({
      where: { sessionId, status: In(['completed', 'failed']) },
      order: { finishedAt: 'DESC' },
    });
  }

  /** queued|running → running (attempt counted). Null when the run already ended or was cancelled. */
  async markRunning(id: string): Promise<RunEntity | null> {
    const updated = await this.runs
      .createQueryBuilder()
      .update()
      .set({ status: 'running', startedAt: () => 'COALESCE(started_at, now())', attempts: () => 'attempts + 1' })
      .where('id = :id AND status IN (:...live) AND cancel_requested = false', { id, live: ['queued', 'running'] })
      .returning('*')
      .execute();
    return updated.affected ? this.runs.findOneBy({ id }) : null;
  }

  async setProgress(id: string, progress: Record<string, unknown>): Promise<void> {
    await this.runs.update({ id, status: 'running' }, { progress: progress as never });
  }

  /**
   * Ends a run: its status, result and trace, the turn's messages and the release of the session lease,
   * in one transaction. Returns false (and writes nothing) when the run had already ended.
   */
  async finish(run: RunEntity, end: RunEnd): Promise<boolean> {
    return this.dataSource.transaction(async (tx) => {
      const updated = await tx
        .createQueryBuilder()
        .update(RunEntity)
        .set({
          status: end.status,
          result: end.result as never,
          error: end.error,
          trace: end.trace as never,
          llmCalls: end.usage.calls,
          promptTokens: end.usage.promptTokens,
          completionTokens: end.usage.completionTokens,
          finishedAt: () => 'now()',
        })
        .where('id = :id AND status NOT IN (:...final)', { id: run.id, final: FINAL_STATUSES })
        .execute();
      if (!updated.affected) return false;
      if (end.messages) {
        const common = { sessionId: run.sessionId, runId: run.id };
        await tx.insert(MessageEntity, [
          { ...common, role: 'user', content: end.messages.user, metadata: {} },
          { ...common, role: 'assistant', content: end.messages.assistant, metadata: end.error ? { error: end.error } : {} },
        ]);
      }
      await tx.query(
        `UPDATE sessions SET active_run_id = NULL, lease_expires_at = NULL, updated_at = now()
          WHERE id = $1 AND (active_run_id = $2 OR active_run_id IS NULL)`,
        [run.sessionId, run.id],
      );
      return true;
    });
  }

  /** queued → cancelled at once; running → flagged, the executing worker stops it. */
  async requestCancel(id: string): Promise<{ outcome: 'cancelled' | 'flagged' | 'ended'; status: RunStatus }> {
    const queued = await this.runs.update(
      { id, status: 'queued' },
      { status: 'cancelled', cancelRequested: true, finishedAt: new Date(), error: { code: 'CANCELLED', message: 'cancelled before it started' } },
    );
    if (queued.affected) return { outcome: 'cancelled', status: 'cancelled' };
    const running = await this.runs.update({ id, status: 'running' }, { cancelRequested: true });
    if (running.affected) return { outcome: 'flagged', status: 'running' };
    return { outcome: 'ended', status: (await this.get(id)).status };
  }

  /** Runs that should be executing but nobody holds: for re-queueing after a crash. */
  async orphans(olderThanMs: number): Promise<RunEntity[]> {
    return this.runs
      .createQueryBuilder('r')
      .where(`r.status IN ('queued', 'running')`)
      .andWhere(`r.updated_at < now() - (:ms || ' milliseconds')::interval`, { ms: String(olderThanMs) })
      .andWhere(
        `NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = r.session_id AND s.active_run_id = r.id AND s.lease_expires_at > now())`,
      )
      .orderBy('r.created_at', 'ASC')
      .limit(500)
      .getMany();
  }
}
