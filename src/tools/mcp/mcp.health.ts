import { Injectable } from '@nestjs/common';

import type { HealthIndicator } from '../../observability/health-indicator';
import { McpToolSource } from './mcp-tool-source.service';

/**
 * Readiness of the MCP servers (`checks.mcp`, and each server under `mcp_servers`). A server that is down only
 * degrades readiness (status `degraded`, still 200): the service runs without its tools, and retries it.
 */
@Injectable()
export class McpHealthIndicator implements HealthIndicator {
  readonly name = 'mcp';
  readonly degradesOnly = true;

  constructor(private readonly source: McpToolSource) {}

  configured(): boolean {
    return this.source.configured();
  }

  check(): Promise<boolean> {
    const down = Object.entries(this.source.status()).filter(([, s]) => s.status === 'down');
    if (down.length) return Promise.reject(new Error(`down: ${down.map(([name, s]) => `${name} (${s.error})`).join(', ')}`));
    return Promise.resolve(true);
  }

  details(): Record<string, unknown> {
    return this.configured() ? { mcp_servers: this.source.status() } : {};
  }
}
