import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';

import { AppConfig } from '../config/app-config';
import { ApiKeyAuth } from './api-key-auth.service';
import { JwksHealthIndicator } from './jwks.health';
import { KeyThrottlerGuard, rateLimitOptions } from './rate-limit';
import { ResourceAccess } from './resource-access';
import { ScopeGuard } from './scope.guard';
import { StreamTickets } from './stream-ticket';
import { TenantGuard } from './tenant.guard';
import { TokenAuth } from './token-auth.service';

/** API keys, bearer tokens and tenants; who sees what inside a tenant (ResourceAccess); the global tenant guard, the scope guard, then the per-key rate limit (guards run in this order). */
@Module({
  imports: [ThrottlerModule.forRootAsync({ inject: [AppConfig], useFactory: rateLimitOptions })],
  providers: [
    ApiKeyAuth,
    TokenAuth,
    JwksHealthIndicator,
    ResourceAccess,
    StreamTickets,
    { provide: APP_GUARD, useClass: TenantGuard },
    { provide: APP_GUARD, useClass: ScopeGuard },
    { provide: APP_GUARD, useClass: KeyThrottlerGuard },
  ],
  exports: [ApiKeyAuth, TokenAuth, JwksHealthIndicator, ResourceAccess, StreamTickets],
})
export class AuthModule {}
