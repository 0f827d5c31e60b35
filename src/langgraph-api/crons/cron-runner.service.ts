import { Injectable, Logger } from '@nestjs/common';

import { runAsPrincipal } from '../../auth/tenant';
import { DomainException } from '../../core/errors';
import { AssistantsService } from '../assistants/assistants.service';
import { LangGraphRunsService } from '../runs/lg-runs.service';
import type { RunCreateBody } from '../runs/run-schemas';
import { nextRunDate } from './cron-schedule';
import { CronsRepository } from './crons.repository';

export type FireOutcome =
  { status: 'started'; runId: string; threadId: string } | { status: 'gone' } | { status: 'skipped'; reason: string };

/**
 * A cron's tick: starts a run of its assistant with its payload through the LangGraph runs service (the path of
 * `POST /threads/{id}/runs` or `POST /runs`: raw input for custom graphs, config / context, multitask strategy,
 * webhook...), on the cron's thread or on a new one (deleted after its run with `on_run_completed: delete`);
 * records the next run date. `gone`: the cron no longer exists or is disabled, and its schedule should be removed.
 * A tick the runs service refuses (the thread is busy under `reject`, the thread or assistant is gone) is skipped.
 */
@Injectable()
export class CronRunner {
  private readonly logger = new Logger(CronRunner.name);

  constructor(
    private readonly crons: CronsRepository,
    private readonly runs: LangGraphRunsService,
    private readonly assistants: AssistantsService,
  ) {}

  async fire(tenantId: string, cronId: string): Promise<FireOutcome> {
    const cron = await this.crons.get(tenantId, cronId);
    if (!cron || !cron.enabled) return { status: 'gone' };
    if (cron.endTime && cron.endTime.getTime() < Date.now()) return { status: 'gone' };
    await this.crons.setNextRunDate(tenantId, cronId, nextRunDate(cron.schedule, cron.timezone, cron.endTime, new Date(Date.now() + 1)));
    const assistant = await this.assistants.get(tenantId, cron.assistantId).catch(() => null);
    if (!assistant) return this.skip(cron.cronId, `assistant ${cron.assistantId} no longer exists`);
    const p = cron.payload as Partial<RunCreateBody> & Record<string, unknown>;
    const body: RunCreateBody = {
      assistant_id: assistant.assistant_id,
      input: (p.input as Record<string, unknown> | undefined) ?? undefined,
      config: p.config ?? undefined,
      context: p.context,
      metadata: { ...(p.metadata ?? {}), cron_id: cron.cronId },
      interrupt_before: p.interrupt_before ?? undefined,
      interrupt_after: p.interrupt_after ?? undefined,
      webhook: p.webhook ?? undefined,
      multitask_strategy: p.multitask_strategy ?? undefined,
      stream_mode: p.stream_mode ?? undefined,
      stream_subgraphs: p.stream_subgraphs ?? undefined,
      on_completion: cron.threadId ? undefined : cron.onRunCompleted === 'keep' ? 'keep' : 'delete',
    };
    try {
      // a tick's new thread is its cron's user's, as if they had asked for the run (auth/resource-access.ts)
      const create = () => this.runs.create(tenantId, cron.threadId, body);
      const asUser = cron.threadId === null && cron.userId;
      const { run, threadId } = asUser
        ? await runAsPrincipal({ tenantId, userId: cron.userId!, permissions: ['read', 'write'] }, create)
        : await create();
      this.logger.log({ msg: 'cron fired', cron_id: cronId, run_id: run.id, session_id: threadId });
      return { status: 'started', runId: run.id, threadId };
    } catch (err) {
      if (err instanceof DomainException) return this.skip(cron.cronId, err.message);
      throw err;
    }
  }

  private skip(cronId: string, reason: string): FireOutcome {
    this.logger.warn({ msg: 'cron tick skipped', cron_id: cronId, reason });
    return { status: 'skipped', reason };
  }
}
