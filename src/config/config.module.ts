import { DynamicModule, Global, Module } from '@nestjs/common';

import { AppConfig } from './app-config';

@Global()
@Module({})
export class ConfigModule {
  /** Provides the process's one AppConfig (built by the entry point, see config-source.ts) to every module. */
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: AppConfig, useValue: config }],
      exports: [AppConfig],
    };
  }
}
