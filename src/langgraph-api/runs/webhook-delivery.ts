import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { ORCHESTRATOR_DATA_SOURCE } from '../../database/data-source-name';
import { rowsOf } from '../../database/query-rows';
import { RunRecords } from '../../runs/records/run-records.repository';
import { ThreadsService } from '../threads/threads.service';
import { RunWebhooks } from './run-webhook';

/** How often every API process looks for ended runs whose webhook is due (a missed end, a retry). */
const SWEEP_MS = 2000;
/** A claimed delivery that did not settle (its process died while sending) is due again after this long. */
const CLAIM_MS = 30_000;
/** Attempts per webhook, the n-th retry `BACKOFF_MS × 2^(n-1)` after the previous failure. */
const MAX_ATTEMPTS = 5;
const BACKOFF_MS = 1000;

const STATE = `'{lg,webhook_delivery}'`;
const ENDED = `(status IN ('completed', 'failed', 'cancelled') OR (status = 'interrupted' AND finished_at IS NOT NULL))`;
const DUE = `input #>> '{lg,webhook}' IS NOT NULL AND input #>> '{lg,webhook_delivery,done}' IS NULL
  AND COALESCE((input #>> '{lg,webhook_delivery,next_at}')::timestamptz, '-infinity') <= now()
  AND COALESCE((input #>> '{lg,webhook_delivery,attempts}')::int, 0) < ${MAX_ATTEMPTS} AND ${ENDED}`;

/**
 * Run webhooks that survive processes. The URL is recorded with the run (`input.lg.webhook`) and so is the
 * delivery (`input.lg.webhook_delivery`: attempts, next_at, done). The process that accepted the run delivers as
 * soon as it sees the end; every API process also sweeps for due deliveries (its accepting process died, a
 * retry after a failure). A delivery is claimed with one conditional UPDATE, so one process sends each attempt.
 */
@Injectable()
export class WebhookDelivery implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WebhookDelivery.name);
  private timer?: NodeJS.Timeout;
  private sweeping = false;

  constructor(
    @InjectDataSource(ORCHESTRATOR_DATA_SOURCE) private readonly db: DataSource,
    private readonly records: RunRecords,
    private readonly threads: ThreadsService,
    private readonly webhooks: RunWebhooks,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), SWEEP_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** Sends the ended run's webhook if it is due and no other process has claimed it. */
  async deliver(runId: string): Promise<void> {
    const attempt = await this.claim(runId);
    if (attempt === null) return;
    let ok = false;
    try {
      const run = await this.records.get(runId, 'run');
      const thread = await this.threads.get(run.tenantId, run.sessionId).catch(() => null);
      ok = await this.webhooks.send(String(run.input.lg?.webhook), run, thread?.values ?? null);
    } finally {
      await this.settle(runId, attempt, ok);
    }
  }

  private async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const due = rowsOf<{ id: string }>(
        await this.db.query(`SELECT id FROM runs WHERE input ? 'lg' AND ${DUE} AND updated_at > now() - interval '1 day' LIMIT 50`),
      );
      for (const { id } of due) await this.deliver(id);
    } catch (err) {
      this.logger.warn({ msg: 'webhook sweep failed', err: (err as Error).message });
    } finally {
      this.sweeping = false;
    }
  }

  /** The attempt number this process now owns (null: not due, or another process has it). */
  private async claim(runId: string): Promise<number | null> {
    const rows = rowsOf<{ attempts: number }>(
      await this.db.query(
        `UPDATE runs SET input = jsonb_set(input, ${STATE}, jsonb_build_object(
            'attempts', COALESCE((input #>> '{lg,webhook_delivery,attempts}')::int, 0) + 1,
            'next_at', to_jsonb(now() + $2 * interval '1 millisecond')))
          WHERE id = $1 AND ${DUE}
          RETURNING (input #>> '{lg,webhook_delivery,attempts}')::int AS attempts`,
        [runId, CLAIM_MS],
      ),
    );
    return rows[0]?.attempts ?? null;
  }

  private async settle(runId: string, attempt: number, ok: boolean): Promise<void> {
    const done = ok ? 'sent' : attempt >= MAX_ATTEMPTS ? 'gave_up' : null;
    if (done === 'gave_up') this.logger.warn({ msg: 'webhook given up', run_id: runId, attempts: attempt });
    await this.db
      .query(
        `UPDATE runs SET input = jsonb_set(input, ${STATE}, jsonb_build_object(
            'attempts', $2::int, 'next_at', to_jsonb(now() + $3 * interval '1 millisecond'), 'done', $4::text, 'at', to_jsonb(now())))
          WHERE id = $1`,
        [runId, attempt, BACKOFF_MS * 2 ** (attempt - 1), done],
      )
      .catch((err: Error) => this.logger.warn({ msg: 'webhook delivery not recorded', run_id: runId, err: err.message }));
  }
}
