import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';

import { RunLedger } from '../../runs/store/run-ledger';
import { RunStore } from '../../runs/store/run-store';
import { ThreadsService } from '../threads/threads.service';
import { RunWebhooks } from './run-webhook';

/** How often every API process looks for ended runs whose webhook is due (a missed end, a retry). */
const SWEEP_MS = 2000;
/** A claimed delivery that did not settle (its process died while sending) is due again after this long. */
const CLAIM_MS = 30_000;

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
    private readonly ledger: RunLedger,
    private readonly records: RunStore,
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
      for (const id of await this.ledger.dueWebhooks()) await this.deliver(id);
    } catch (err) {
      this.logger.warn({ msg: 'webhook sweep failed', err: (err as Error).message });
    } finally {
      this.sweeping = false;
    }
  }

  private async claim(runId: string): Promise<number | null> {
    return this.ledger.claimWebhook(runId, CLAIM_MS);
  }

  private async settle(runId: string, attempt: number, ok: boolean): Promise<void> {
    const done = await this.ledger
      .settleWebhook(runId, attempt, ok)
      .catch((err: Error) => this.logger.warn({ msg: 'webhook delivery not recorded', run_id: runId, err: err.message }));
    if (done === 'gave_up') this.logger.warn({ msg: 'webhook given up', run_id: runId, attempts: attempt });
  }
}
