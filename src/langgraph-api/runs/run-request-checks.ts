import { Injectable } from '@nestjs/common';

import { AppConfig } from '../../config/app-config';
import { AssistantsService } from '../assistants/assistants.service';
import { CheckpointNotFoundException, EmptyInputException, LimitExceededException, UnknownNodeException } from '../errors';
import { ThreadsRepository } from '../threads/threads.repository';
import type { RunCreateBody } from './run-schemas';

/** What the runs service knows of the run's thread when it checks the request (null: a new thread). */
export interface ThreadAtAccept {
  id: string;
  hasCheckpoint: boolean;
  /** the thread's unfinished runs: one of them may write the checkpoint an `enqueue`d run continues from */
  inflight: string[];
}

/**
 * A run request's fields that only make sense against the graph and the thread, checked before anything is
 * written (each answered 4xx instead of a run that fails or a thread left busy):
 * `after_seconds` within RUN_MAX_DELAY_S, `command.goto` naming nodes of the graph, `checkpoint_id` a checkpoint of
 * the thread, and no input (null or absent) only where there is a checkpoint to continue from.
 */
@Injectable()
export class RunRequestChecks {
  constructor(
    private readonly config: AppConfig,
    private readonly assistants: AssistantsService,
    private readonly threads: ThreadsRepository,
  ) {}

  async check(tenantId: string, body: RunCreateBody, graphId: string, thread: ThreadAtAccept | null): Promise<void> {
    const delay = body.after_seconds ?? 0;
    if (delay > this.config.runMaxDelayS) {
      throw new LimitExceededException('RUN_DELAY_TOO_LONG', `after_seconds is ${delay}`, 'RUN_MAX_DELAY_S', this.config.runMaxDelayS);
    }
    this.checkGoto(body.command?.goto, graphId);
    const checkpointId = body.checkpoint_id ?? body.checkpoint?.checkpoint_id ?? undefined;
    const hasState = !!thread?.hasCheckpoint;
    if (checkpointId && !(hasState && (await this.threads.hasCheckpoint(tenantId, thread.id, checkpointId)))) {
      throw new CheckpointNotFoundException(checkpointId);
    }
    if (body.input == null && !body.command && !hasState && !thread?.inflight.length) {
      throw new EmptyInputException(thread?.id ?? null);
    }
  }

  private checkGoto(goto: string | string[] | null | undefined, graphId: string): void {
    if (goto == null) return;
    const targets = this.assistants.gotoTargets(graphId);
    if (!targets) return;
    const unknown = (Array.isArray(goto) ? goto : [goto]).find((n) => !targets.includes(n));
    if (unknown !== undefined) throw new UnknownNodeException(unknown, graphId, targets);
  }
}
