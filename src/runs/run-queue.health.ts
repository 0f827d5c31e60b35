import { Injectable } from '@nestjs/common';

import type { HealthIndicator } from '../observability/health-indicator';
import { RunQueue } from './run-queue';

/** Readiness of the runs queue's Redis (`not_configured` for the in-process queue); reports the queue kind. */
@Injectable()
export class RunQueueHealthIndicator implements HealthIndicator {
  readonly name = 'redis';

  constructor(private readonly queue: RunQueue) {}

  configured(): boolean {
    return this.queue.kind !== 'inline';
  }

  check(): Promise<boolean> {
    return this.queue.ready();
  }

  details(): Record<string, unknown> {
    return { queue: this.queue.kind };
  }
}
