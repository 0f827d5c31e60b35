import { randomUUID } from 'node:crypto';

import { Injectable } from '@nestjs/common';

import { matchesFilters } from '../../auth/auth-filters';
import { currentUser } from '../../auth/tenant';
import { AppConfig } from '../../config/app-config';
import { AssistantsService } from '../assistants/assistants.service';
import { LanggraphCustomAuth } from '../auth/custom-auth';
import { CronNotFoundException, InvalidRequestException, LimitExceededException, ThreadNotFoundException } from '../errors';
import { RunWebhooks } from '../runs/run-webhook';
import { ThreadsRepository } from '../threads/threads.repository';
import { checkInterval, nextRunDate, validateSchedule } from './cron-schedule';
import { CronScheduler } from './cron-scheduler';
import { type CronCountBody, type CronCreateBody, type CronPatchBody, type CronSearchBody, payloadOf } from './cron-schemas';
import { type CronRow, CronsRepository } from './crons.repository';

/** A cron as LangGraph Server shows it (the SDK's `Cron`). */
export function toWireCron(c: CronRow): Record<string, unknown> {
  return {
    cron_id: c.cronId,
    assistant_id: c.assistantId,
    thread_id: c.threadId,
    on_run_completed: c.onRunCompleted,
    end_time: c.endTime?.toISOString() ?? null,
    schedule: c.schedule,
    timezone: c.timezone,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
    payload: c.payload,
    user_id: c.userId,
    next_run_date: c.nextRunDate?.toISOString() ?? null,
    metadata: c.metadata,
    enabled: c.enabled,
  };
}

/** A cron's runs need an input object (a built-in agent takes the text of its last human message of `input.messages`). */
function checkInput(input: unknown): void {
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw new InvalidRequestException('input: a cron needs an input object');
}

/**
 * Crons of the LangGraph Server API: a schedule (cron expression) that starts a run of an assistant on a thread,
 * or on a new thread each time (stateless; the thread is deleted after its run unless `on_run_completed: keep`).
 * Rows in `lg_crons`, ticks from the CronScheduler, runs started by the CronRunner.
 */
@Injectable()
export class CronsService {
  constructor(
    private readonly repo: CronsRepository,
    private readonly scheduler: CronScheduler,
    private readonly assistants: AssistantsService,
    private readonly threads: ThreadsRepository,
    private readonly webhooks: RunWebhooks,
    private readonly config: AppConfig,
    private readonly auth: LanggraphCustomAuth,
  ) {}

  async create(tenantId: string, threadId: string | null, body: CronCreateBody): Promise<Record<string, unknown>> {
    this.checkSchedule(body.schedule, body.timezone);
    // the custom auth (langgraph.json `auth`): a cron runs on the thread, so the thread's create_run filter holds
    const threadFilters = threadId === null ? undefined : await this.auth.authorize('threads', 'create_run', { thread_id: threadId });
    if (threadId !== null && !(await this.threads.get(tenantId, threadId, threadFilters))) throw new ThreadNotFoundException(threadId);
    const value: Record<string, unknown> = { ...body, thread_id: threadId, metadata: { ...(body.metadata ?? {}) } };
    await this.auth.authorize('crons', 'create', value);
    const assistant = await this.assistants.get(tenantId, body.assistant_id);
    checkInput(body.input);
    // the webhook its runs will send to, checked now as a run's is (not first refused at each tick)
    if (body.webhook) await this.webhooks.check(body.webhook);
    const endTime = body.end_time ? new Date(body.end_time) : null;
    const enabled = body.enabled ?? true;
    const timezone = body.timezone ?? null;
    const { maxPerTenant } = this.config.crons;
    const cron = await this.repo.insert(
      {
        tenantId,
        cronId: randomUUID(),
        assistantId: assistant.assistant_id,
        threadId,
        schedule: body.schedule,
        timezone,
        endTime,
        payload: payloadOf(body),
        metadata: (value.metadata as Record<string, unknown> | undefined) ?? {},
        onRunCompleted: threadId === null ? (body.on_run_completed ?? 'delete') : 'keep',
        enabled,
        userId: currentUser() ?? null,
        nextRunDate: enabled ? nextRunDate(body.schedule, timezone, endTime) : null,
      },
      maxPerTenant,
    );
    if (cron === 'limit') {
      throw new LimitExceededException('CRON_LIMIT_REACHED', `the tenant has ${maxPerTenant} crons`, 'CRON_MAX_PER_TENANT', maxPerTenant);
    }
    try {
      await this.scheduler.schedule(cron);
    } catch (err) {
      await this.repo.delete(tenantId, cron.cronId);
      throw err;
    }
    return toWireCron(cron);
  }

  async update(tenantId: string, cronId: string, body: CronPatchBody): Promise<Record<string, unknown>> {
    // the metadata goes through the auth (the built-in owner rule keeps the owner in it)
    const value: Record<string, unknown> = body.metadata ? { metadata: { ...body.metadata } } : {};
    const cron = await this.row(tenantId, cronId, 'update', value);
    const schedule = body.schedule ?? cron.schedule;
    const timezone = body.timezone === undefined ? cron.timezone : body.timezone;
    // a cron made before CRON_MIN_INTERVAL_S was lowered can still be disabled or edited otherwise
    if (body.schedule == null) validateSchedule(schedule, timezone);
    else this.checkSchedule(schedule, timezone);
    const payload = { ...cron.payload, ...payloadOf(body) };
    if (body.input !== undefined) checkInput(payload.input);
    if (body.webhook) await this.webhooks.check(body.webhook);
    const endTime = body.end_time === undefined ? cron.endTime : body.end_time === null ? null : new Date(body.end_time);
    const enabled = body.enabled ?? cron.enabled;
    const updated = await this.repo.update(tenantId, cronId, {
      schedule,
      timezone,
      endTime,
      payload,
      metadata: value.metadata ? { ...cron.metadata, ...(value.metadata as Record<string, unknown>) } : undefined,
      onRunCompleted: cron.threadId === null ? (body.on_run_completed ?? undefined) : undefined,
      enabled,
      nextRunDate: enabled ? nextRunDate(schedule, timezone, endTime) : null,
    });
    if (!updated) throw new CronNotFoundException(cronId);
    await this.scheduler.schedule(updated);
    return toWireCron(updated);
  }

  async delete(tenantId: string, cronId: string): Promise<void> {
    await this.row(tenantId, cronId, 'delete');
    if (!(await this.repo.delete(tenantId, cronId))) throw new CronNotFoundException(cronId);
    await this.scheduler.unschedule(cronId);
  }

  async search(tenantId: string, q: CronSearchBody): Promise<Array<Record<string, unknown>>> {
    const auth = await this.auth.authorize('crons', 'search', { ...q });
    const rows = await this.repo.search(
      tenantId,
      { assistantId: this.assistantIdOf(q.assistant_id), threadId: q.thread_id, enabled: q.enabled, metadata: q.metadata, auth },
      { by: q.sort_by, order: q.sort_order },
      { limit: q.limit, offset: q.offset },
    );
    const crons = rows.map(toWireCron);
    const select = q.select;
    return select?.length ? crons.map((c) => Object.fromEntries(Object.entries(c).filter(([k]) => select.includes(k)))) : crons;
  }

  async count(tenantId: string, q: CronCountBody): Promise<number> {
    const auth = await this.auth.authorize('crons', 'search', { ...q });
    return this.repo.count(tenantId, {
      assistantId: this.assistantIdOf(q.assistant_id),
      threadId: q.thread_id,
      metadata: q.metadata,
      auth,
    });
  }

  /** A valid cron expression and time zone, ticking at most every CRON_MIN_INTERVAL_S. */
  /** a graph id filter stands for its system assistant, as crons store it */
  private assistantIdOf(id: string | null | undefined): string | null | undefined {
    return id ? this.assistants.canonicalId(id) : id;
  }

  private checkSchedule(schedule: string, timezone: string | null | undefined): void {
    validateSchedule(schedule, timezone);
    checkInterval(schedule, timezone, this.config.crons.minIntervalS);
  }

  /** The cron, 404 when it does not exist or the custom auth's filter for `action` hides it. */
  private async row(tenantId: string, cronId: string, action: string, value: Record<string, unknown> = {}): Promise<CronRow> {
    const filters = await this.auth.authorize('crons', action, { ...value, cron_id: cronId });
    const cron = await this.repo.get(tenantId, cronId);
    if (!cron || !matchesFilters(cron.metadata, filters)) throw new CronNotFoundException(cronId);
    return cron;
  }
}
