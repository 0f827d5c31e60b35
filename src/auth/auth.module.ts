import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';

import { AppConfig } from '../config/app-config';
import { ApiKeyAuth } from './api-key-auth.service';
import { KeyThrottlerGuard, rateLimitOptions } from './rate-limit';
import { TenantGuard } from './tenant.guard';

/** API keys and tenants, the global tenant guard, then the per-key rate limit (guards run in this order). */
@Module({
  imports: [ThrottlerModule.forRootAsync({ inject: [AppConfig], useFactory: rateLimitOptions })],
  providers: [ApiKeyAuth, { provide: APP_GUARD, useClass: TenantGuard }, { provide: APP_GUARD, useClass: KeyThrottlerGuard }],
  exports: [ApiKeyAuth],
})
export class AuthModule {}
