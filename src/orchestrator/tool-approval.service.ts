import { Injectable } from '@nestjs/common';

import { RunNotInterruptedException } from '../core/errors';
import { RunQueue } from '../runs/run-queue';
import { RunStore } from '../runs/store/run-store';
import { type JobView, toJobView } from './runs.service';

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
   * Queue the run again, at once: no waiting here. Its paused attempt may still be winding down (its job still
   * active, whose id — the run id — would swallow a new one): the in-process queue runs a run enqueued while it
   * executes it again once that execution is over, and the BullMQ worker queues a paused run again when its job
   * completes if it was decided meanwhile. A finished job is replaced (`cancel` removes it).
   */
  private async handOff(id: string): Promise<void> {
    await this.queue.cancel(id);
    await this.queue.enqueue(id);
  }
}
