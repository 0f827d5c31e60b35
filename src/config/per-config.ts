import type { DynamicModule } from '@nestjs/common';

import type { AppConfig } from './app-config';

/**
 * One dynamic module object per (config, worker): Nest 11 tells dynamic modules apart by reference, so the REST
 * and LangGraph dialects registering the same module with the same config must get the same object (one queue,
 * one in-process worker).
 */
export function perConfig(build: (config: AppConfig, worker: boolean) => DynamicModule) {
  const registered = new WeakMap<AppConfig, Map<boolean, DynamicModule>>();
  return (config: AppConfig, worker: boolean): DynamicModule => {
    const byWorker = registered.get(config) ?? new Map<boolean, DynamicModule>();
    registered.set(config, byWorker);
    const made = byWorker.get(worker) ?? build(config, worker);
    byWorker.set(worker, made);
    return made;
  };
}
