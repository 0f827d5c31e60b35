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
