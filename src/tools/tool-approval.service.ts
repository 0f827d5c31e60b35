import { Injectable } from '@nestjs/common';

import { RunNotInterruptedException } from '../common/domain.exception';
import { RunRecords } from '../orchestrator/run-records.service';
import { RunQueue } from '../runs/run-queue';
import { type JobView, toJobView } from '../runs/runs.service';
import { ToolApprovalStore } from './tool-approval.store';

const LOCAL_HANDOFF_MS = 5_000;

/**
 * An operator's answer to a paused run (TOOL_APPROVAL): the decision is recorded on the run, which goes back
 * to the queue; the worker resumes the graph with `Command({ resume: { approved } })`.
 */
@Injectable()
export class ToolApprovalService {
  constructor(
    private readonly records: RunRecords,
    private readonly store: ToolApprovalStore,
    private readonly queue: RunQueue,
  ) {}

  async decide(id: string, approved: boolean): Promise<JobView> {
    const run = await this.records.get(id); // 404 first
    if (!(await this.store.decide(id, approved))) throw new RunNotInterruptedException(id, (await this.records.get(id)).status);
    await this.handOff(id, run.id);
    return toJobView(await this.records.get(id));
  }

  /** The paused attempt's job may still be winding down in this process: queue the run once it has. */
  private async handOff(id: string, runId: string): Promise<void> {
    const deadline = Date.now() + LOCAL_HANDOFF_MS;
    while (this.queue.isLocal(runId) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await this.queue.remove(id); // a finished BullMQ job with this id would swallow the new one
    await this.queue.enqueue(id);
  }
}
