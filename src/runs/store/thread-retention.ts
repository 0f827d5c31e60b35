import { Injectable } from '@nestjs/common';

import { AppConfig } from '../../config/app-config';
import { readStorageConfig } from '../../database/storage-config';

/** What expiry does to a thread: `delete` it (and all it holds), or `keep_latest` (its latest checkpoint only). */
export type TtlStrategy = 'delete' | 'keep_latest';

/** A thread's TTL: minutes after its last activity (fractions allowed), and what happens then. */
export interface ThreadTtl {
  minutes: number;
  strategy: TtlStrategy;
}

/** Threads handled per sweep, at most, when langgraph.json names no `sweep_limit`. */
const DEFAULT_SWEEP_LIMIT = 1000;

/**
 * The deployment's thread retention (docs/retention.md): the TTL a new thread or REST v1 session gets when it names
 * none, and how often and how much the sweeper sweeps. When langgraph.json has a `checkpointer.ttl` key, it decides
 * (its absent keys take their documented defaults); otherwise the environment does (THREAD_TTL_MINUTES,
 * THREAD_TTL_STRATEGY, THREAD_TTL_SWEEP_MINUTES): the file is the deployment's own declaration of its storage, the
 * environment the operator's default for deployments without one (REST v1 users).
 */
@Injectable()
export class ThreadRetention {
  /** the TTL of a thread created without one; null: such threads are kept until deleted */
  readonly defaultTtl: ThreadTtl | null;
  /** how often the sweeper runs, in milliseconds */
  readonly sweepIntervalMs: number;
  /** threads handled per sweep transaction, at most */
  readonly sweepLimit: number;

  constructor(config: AppConfig) {
    const file = readStorageConfig(config.langgraphConfig).checkpointerTtl;
    const env = config.threadTtl;
    const minutes = file ? file.defaultTtl : env.defaultMinutes;
    const strategy = file ? file.strategy : env.strategy;
    this.defaultTtl = minutes ? { minutes, strategy } : null;
    this.sweepIntervalMs = Math.max(100, (file?.sweepIntervalMinutes ?? env.sweepMinutes) * 60_000);
    this.sweepLimit = file?.sweepLimit ?? DEFAULT_SWEEP_LIMIT;
  }

  /** The TTL a thread is created with: its own (`ttl` of the request), else the deployment's default. */
  ttlOf(own: ThreadTtl | null | undefined): ThreadTtl | null {
    return own ?? this.defaultTtl;
  }
}
