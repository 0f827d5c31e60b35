import { Injectable } from '@nestjs/common';

import type { HealthIndicator } from '../../observability/health-indicator';
import { A2aAgentSource } from './a2a-agent-source.service';

/**
 * Readiness of the remote A2A agents (`checks.a2a`, and each agent under `a2a_agents`: its card when up, the
 * reason when down). An agent that is down only degrades readiness (status `degraded`, still 200): the service
 * runs without it, and keeps trying to fetch its card.
 */
@Injectable()
export class A2aHealthIndicator implements HealthIndicator {
  readonly name = 'a2a';
  readonly degradesOnly = true;

  constructor(private readonly source: A2aAgentSource) {}

  configured(): boolean {
    return this.source.configured();
  }

  check(): Promise<boolean> {
    const down = Object.entries(this.source.status()).flatMap(([name, s]) => (s.status === 'down' ? [`${name} (${s.error})`] : []));
    if (down.length) return Promise.reject(new Error(`down: ${down.join(', ')}`));
    return Promise.resolve(true);
  }

  details(): Record<string, unknown> {
    return this.configured() ? { a2a_agents: this.source.status() } : {};
  }
}
