import { Injectable } from '@nestjs/common';

import { RunNotInterruptedException } from '../core/errors';
import { RunQueue } from '../runs/run-queue';
import { RunStore } from '../runs/store/run-store';
import { type JobView, toJobView } from './runs.service';

const HANDOFF_MS = 5_000;
const HANDOFF_CHECK_MS = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An operator's answer to a paused run (TOOL_APPROVAL): the decision is recorded on the run, which goes back
 * to the queue; the worker resumes the graph with `Command({ resume: { approved } })`.
 */
@Injectable()
export class ToolApprovalService {
  constructor(
    private readonly records: RunStore,
    private readonly queue: RunQueue,
  ) {}

  async decide(id: string, approved: boolean, tenantId: string): Promise<JobView> {
    await this.records.getForTenant(id, tenantId); // 404 first, also for another tenant's run
    if (!(await this.records.decide(id, approved))) throw new RunNotInterruptedException(id, (await this.records.get(id)).status);
    await this.handOff(id);
    return toJobView(await this.records.get(id));
  }

  /**
   * Queue the run again. The paused attempt's job may still be winding down (in this process, or as an
   * active BullMQ job whose id — the run id — would swallow the new one): wait for it, replace a finished
   * job, and repeat until a worker has taken the run or the hand-off time is up (a run merely waiting for a
   * free worker is then left queued).
   */
  private async handOff(id: string): Promise<void> {
    const deadline = Date.now() + HANDOFF_MS;
    for (;;) {
      while (this.queue.isLocal(id) && Date.now() < deadline) await sleep(20);
      await this.queue.cancel(id);
      await this.queue.enqueue(id);
      if (this.queue.kind === 'inline' || Date.now() >= deadline) return;
      await sleep(HANDOFF_CHECK_MS);
      if ((await this.records.get(id)).status !== 'queued') return;
    }
  }
}
