import { Injectable } from '@nestjs/common';

import type { HealthIndicator } from '../observability/health-indicator';
import { TokenAuth } from './token-auth.service';

/** Readiness of bearer tokens: the issuer's key set is at hand (cached, or fetched now); `not_configured` without tokens. */
@Injectable()
export class JwksHealthIndicator implements HealthIndicator {
  readonly name = 'jwks';

  constructor(private readonly tokens: TokenAuth) {}

  configured(): boolean {
    return this.tokens.enabled();
  }

  check(): Promise<boolean> {
    return this.tokens.keys!.ready();
  }

  details(): Record<string, unknown> {
    return this.tokens.keys ? { jwks: this.tokens.keys.state() } : {};
  }
}
