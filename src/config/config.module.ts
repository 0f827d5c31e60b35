import { DynamicModule, Global, Module } from '@nestjs/common';

import { AppConfig } from './app-config';

@Global()
@Module({})
export class ConfigModule {
  /** `env` defaults to `process.env`; tests and benchmarks pass their own. */
  static forRoot(env: Record<string, string | undefined> = process.env): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: AppConfig, useValue: new AppConfig(env) }],
      exports: [AppConfig],
    };
  }
}
