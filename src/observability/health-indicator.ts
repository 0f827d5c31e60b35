/**
 * A dependency's readiness check for `GET /health/ready`. The module that owns the dependency provides it
 * (database, runs queue); observability imports none of them. The app assembles the list under
 * HEALTH_INDICATORS. A provided indicator that is `down` makes readiness 503, unless it only degrades.
 */
export interface HealthIndicator {
  /** its key under `checks` */
  readonly name: string;
  /** true: `down` makes readiness `degraded` (200), not 503 — an optional dependency (MCP servers) */
  readonly degradesOnly?: boolean;
  /** false → reported as `not_configured` and not checked */
  configured(): boolean;
  /** true when up; false, a throw or a timeout is `down` */
  check(): Promise<boolean>;
  /** extra top-level fields of the readiness body (e.g. which queue runs use) */
  details?(): Record<string, unknown>;
}

/** Injection token: the HealthIndicator[] the readiness check consults, in the order reported. */
export const HEALTH_INDICATORS = Symbol('HEALTH_INDICATORS');

/** One indicator's answer under `checks`. */
export type Check = { status: 'up' | 'down' | 'not_configured'; detail?: string; ms?: number };

const CHECK_TIMEOUT_MS = 2000;

/** `check` timed, with a time limit: true → up; false, a throw or the time limit → down (with the reason). */
export async function timedCheck(check: () => Promise<boolean>): Promise<Check> {
  const start = Date.now();
  try {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, rej) => (timer = setTimeout(() => rej(new Error('timed out')), CHECK_TIMEOUT_MS)));
    const ok = await Promise.race([check(), timeout]).finally(() => clearTimeout(timer));
    return { status: ok ? 'up' : 'down', ms: Date.now() - start };
  } catch (err) {
    return { status: 'down', detail: (err as Error).message.slice(0, 200), ms: Date.now() - start };
  }
}

/** Every indicator checked at once (`not_configured` ones skipped); `ok` unless one that does not only degrade is down. */
export async function checkIndicators(
  indicators: readonly HealthIndicator[],
): Promise<{ ok: boolean; degraded: boolean; checks: Record<string, Check> }> {
  const results = await Promise.all(
    indicators.map((i) => (i.configured() ? timedCheck(() => i.check()) : Promise.resolve<Check>({ status: 'not_configured' }))),
  );
  const checks: Record<string, Check> = {};
  indicators.forEach((indicator, n) => (checks[indicator.name] = results[n]));
  return {
    ok: results.every((c, n) => c.status !== 'down' || indicators[n].degradesOnly),
    degraded: results.some((c) => c.status === 'down'),
    checks,
  };
}
