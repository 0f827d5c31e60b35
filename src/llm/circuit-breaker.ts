import { ModelUnavailableError } from './model-errors';

export type BreakerState = 'closed' | 'open' | 'half_open';

/** A gauge value per state (metrics): 0 closed, 1 half-open, 2 open. */
export const BREAKER_STATE_VALUE: Record<BreakerState, number> = { closed: 0, half_open: 1, open: 2 };

export interface BreakerSettings {
  /** consecutive failures (within `windowMs` of each other) that open the breaker */
  failures: number;
  windowMs: number;
  /** how long it stays open before one probe call is let through */
  cooldownMs: number;
}

export interface BreakerSnapshot {
  endpoint: string;
  state: BreakerState;
  consecutiveFailures: number;
  /** when an open breaker lets a probe through (epoch ms), or null */
  retryAt: number | null;
}

export const DEFAULT_BREAKER: BreakerSettings = { failures: 5, windowMs: 60_000, cooldownMs: 30_000 };

/**
 * A circuit breaker for one model endpoint: closed (calls pass) → open after `failures` consecutive endpoint
 * failures within the window (calls fail fast with ModelUnavailableError) → half-open after the cool-down
 * (one probe passes; success closes, failure opens again for another cool-down).
 */
export class CircuitBreaker {
  private failures = 0;
  private lastFailureAt = 0;
  private openedAt: number | null = null;
  private probing = false;

  constructor(
    readonly endpoint: string,
    private settings: BreakerSettings = DEFAULT_BREAKER,
    private readonly now: () => number = Date.now,
  ) {}

  configure(settings: BreakerSettings): void {
    this.settings = settings;
  }

  get state(): BreakerState {
    if (this.openedAt === null) return 'closed';
    return this.now() - this.openedAt >= this.settings.cooldownMs ? 'half_open' : 'open';
  }

  /** Before a call: throws when the breaker is open (or half-open with its probe already under way). */
  acquire(): void {
    const state = this.state;
    if (state === 'closed') return;
    if (state === 'half_open' && !this.probing) {
      this.probing = true;
      return;
    }
    const wait = Math.max(0, this.openedAt! + this.settings.cooldownMs - this.now());
    throw new ModelUnavailableError(
      `model endpoint circuit breaker is open after ${this.failures} consecutive failures (${this.endpoint}); next probe in ${Math.ceil(wait / 1000)} s`,
      { breakerOpen: true },
    );
  }

  success(): void {
    this.failures = 0;
    this.openedAt = null;
    this.probing = false;
  }

  /** An endpoint failure (not a cancellation, not a request the endpoint rejected as malformed). */
  failure(): void {
    const now = this.now();
    if (this.probing || this.state === 'half_open') {
      this.probing = false;
      this.openedAt = now;
      this.failures++;
      return;
    }
    this.failures = now - this.lastFailureAt > this.settings.windowMs ? 1 : this.failures + 1;
    this.lastFailureAt = now;
    if (this.failures >= this.settings.failures) this.openedAt = now;
  }

  /** The call ended without an outcome for the endpoint (cancelled): free the probe slot. */
  release(): void {
    this.probing = false;
  }

  snapshot(): BreakerSnapshot {
    const state = this.state;
    return {
      endpoint: this.endpoint,
      state,
      consecutiveFailures: this.failures,
      retryAt: this.openedAt === null ? null : this.openedAt + this.settings.cooldownMs,
    };
  }
}

const breakers = new Map<string, CircuitBreaker>();

/** The process-wide breaker of an endpoint (by base URL), created on first use. */
export function breakerFor(endpoint: string, settings?: BreakerSettings): CircuitBreaker {
  let b = breakers.get(endpoint);
  if (!b) breakers.set(endpoint, (b = new CircuitBreaker(endpoint, settings)));
  else if (settings) b.configure(settings);
  return b;
}

/** Every endpoint's breaker state, for metrics and readiness. */
export function breakerStates(): BreakerSnapshot[] {
  return [...breakers.values()].map((b) => b.snapshot());
}

/** Forget every breaker (tests). */
export function resetBreakers(): void {
  breakers.clear();
}
