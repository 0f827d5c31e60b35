import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import type Redis from 'ioredis';

export const CANCEL_CHANNEL_REDIS = Symbol('CANCEL_CHANNEL_REDIS');

/**
 * Abort signals of the runs this process executes. A cancel request reaches the process running the job
 * directly, or through a Redis channel when runs are spread over workers.
 */
@Injectable()
export class RunCancellation implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RunCancellation.name);
  private readonly controllers = new Map<string, AbortController>();
  private subscriber?: Redis;
  private readonly channel = 'agents:run-cancel';

  constructor(@Optional() @Inject(CANCEL_CHANNEL_REDIS) private readonly redis?: Redis) {}

  async onModuleInit(): Promise<void> {
    if (!this.redis) return;
    // without a listener ioredis prints every reconnect error of a Redis outage or failover to stderr
    this.redis.on('error', (err: Error) => this.logger.warn({ msg: 'cancel publisher error', err: err.message }));
    this.subscriber = this.redis.duplicate();
    this.subscriber.on('message', (_channel: string, runId: string) => this.abortLocal(runId));
    this.subscriber.on('error', (err: Error) => this.logger.warn({ msg: 'cancel channel error', err: err.message }));
    await this.subscriber.subscribe(this.channel);
  }

  async onApplicationShutdown(): Promise<void> {
    this.subscriber?.disconnect();
    this.redis?.disconnect();
  }

  register(runId: string): AbortSignal {
    const c = new AbortController();
    this.controllers.set(runId, c);
    return c.signal;
  }

  unregister(runId: string): void {
    this.controllers.delete(runId);
  }

  /** Stop the run wherever it executes. */
  async cancel(runId: string): Promise<void> {
    this.abortLocal(runId);
    if (this.redis) await this.redis.publish(this.channel, runId);
  }

  private abortLocal(runId: string): void {
    this.controllers.get(runId)?.abort(new Error('cancelled'));
  }
}
