import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';

import { AppConfig } from '../../config/app-config';
import { FINAL_STATUSES } from '../../database/entities';
import { RunsService } from '../../runs/runs.service';
import { AssistantsService } from '../assistants/assistants.service';
import { ThreadsRepository } from '../threads/threads.repository';
import { ThreadsService } from '../threads/threads.service';
import { nextRunDate } from './cron-schedule';
import { CronsRepository } from './crons.repository';

const DELETE_POLL_MS = 500;

/** The text of a message, whether a string or a list of content parts. */
function textOf(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const parts = content.map((p) => (typeof p === 'string' ? p : (p as { text?: unknown })?.text)).filter((t) => typeof t === 'string');
    return parts.length ? parts.join('') : null;
  }
  return null;
}

/** The text of the last human message of a run input `{ messages: [...] }` (or of a bare string input). */
export function lastHumanText(input: unknown): string | null {
  if (typeof input === 'string') return input;
  const messages = (input as { messages?: unknown } | null)?.messages;
  const list = Array.isArray(messages) ? messages : messages ? [messages] : [];
  for (let i = list.length - 1; i >= 0; i--) {
    const m = list[i] as Record<string, unknown> | string;
    if (typeof m === 'string') return m;
    const role = m?.role ?? m?.type;
    if (role === undefined || role === 'user' || role === 'human') {
      const text = textOf(m?.content);
      if (text !== null) return text;
    }
  }
  return null;
}

export type FireOutcome =
  { status: 'started'; runId: string; threadId: string } | { status: 'gone' } | { status: 'skipped'; reason: string };

/**
 * A cron's tick: starts a run of its assistant with its payload, through the same path as `POST /v1/jobs`
 * (a run row accepted as async, then queued), on the cron's thread or on a new one; records the next run date.
 * `gone`: the cron no longer exists or is disabled, and its schedule should be removed.
 */
@Injectable()
export class CronRunner implements BeforeApplicationShutdown {
  private readonly logger = new Logger(CronRunner.name);
  private closed = false;

  constructor(
    private readonly crons: CronsRepository,
    private readonly runs: RunsService,
    private readonly assistants: AssistantsService,
    private readonly threads: ThreadsRepository,
    private readonly threadsService: ThreadsService,
    private readonly config: AppConfig,
  ) {}

  beforeApplicationShutdown(): void {
    this.closed = true;
  }

  async fire(tenantId: string, cronId: string): Promise<FireOutcome> {
    const cron = await this.crons.get(tenantId, cronId);
    if (!cron || !cron.enabled) return { status: 'gone' };
    if (cron.endTime && cron.endTime.getTime() < Date.now()) return { status: 'gone' };
    await this.crons.setNextRunDate(tenantId, cronId, nextRunDate(cron.schedule, cron.timezone, cron.endTime, new Date(Date.now() + 1)));
    const assistant = await this.assistants.get(tenantId, cron.assistantId).catch(() => null);
    if (!assistant) return this.skip(cron.cronId, `assistant ${cron.assistantId} no longer exists`);
    const metadata = { ...((cron.payload.metadata as Record<string, unknown> | undefined) ?? {}), cron_id: cron.cronId };
    const run = await this.runs.submit({
      message: lastHumanText(cron.payload.input) ?? '',
      session_id: cron.threadId ?? undefined,
      agent: assistant.graph_id,
      tenant_id: tenantId,
      metadata,
    });
    await this.threads.recordRunAssistant(tenantId, run.sessionId, assistant.assistant_id, assistant.graph_id);
    this.logger.log({ msg: 'cron fired', cron_id: cronId, run_id: run.id, session_id: run.sessionId });
    if (!cron.threadId && cron.onRunCompleted === 'delete') void this.deleteWhenEnded(tenantId, run.sessionId, run.id);
    return { status: 'started', runId: run.id, threadId: run.sessionId };
  }

  private skip(cronId: string, reason: string): FireOutcome {
    this.logger.warn({ msg: 'cron tick skipped', cron_id: cronId, reason });
    return { status: 'skipped', reason };
  }

  /**
   * A stateless cron's thread (`on_run_completed: delete`) is deleted once its run has ended. Best effort, in
   * the process that fired the tick: a thread whose run outlives RUN_TIMEOUT_MS × 3 (or this process) is kept.
   */
  private async deleteWhenEnded(tenantId: string, threadId: string, runId: string): Promise<void> {
    const deadline = Date.now() + this.config.runTimeoutMs * 3;
    try {
      while (!this.closed && Date.now() < deadline) {
        const { status } = await this.runs.get(runId);
        if (FINAL_STATUSES.includes(status)) {
          await this.threadsService.delete(tenantId, threadId);
          return;
        }
        await new Promise((r) => setTimeout(r, DELETE_POLL_MS));
      }
    } catch (err) {
      this.logger.warn({ msg: 'could not delete a cron run thread', thread_id: threadId, run_id: runId, err: (err as Error).message });
    }
  }
}
