import { DynamicModule, Module } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { RunsModule } from '../runs/runs.module';
import { OrchestratorModule } from './orchestrator.module';
import { RunDriver } from './run-driver.service';
import { RunRecovery } from './run-recovery.service';
import { RunsService } from './runs.service';
import { ToolApprovalService } from './tool-approval.service';

const registered = new WeakMap<AppConfig, Map<boolean, DynamicModule>>();

/**
 * The run service and the one run driver over the queue and the run store: what REST v1, the LangGraph API,
 * the embed facade and the worker process import. One module object per (config, worker), like RunsModule.
 */
@Module({})
export class RunServiceModule {
  static register(config: AppConfig, worker = config.runWorker): DynamicModule {
    const byWorker = registered.get(config) ?? new Map<boolean, DynamicModule>();
    registered.set(config, byWorker);
    const known = byWorker.get(worker);
    if (known) return known;
    const runs = RunsModule.register(config, worker);
    // the reconciler runs where runs are executed: every process of the in-process queue, BullMQ workers
    const recovery = !config.redisUrl || worker ? [RunRecovery] : [];
    const made: DynamicModule = {
      module: RunServiceModule,
      imports: [OrchestratorModule, runs],
      providers: [RunsService, RunDriver, ToolApprovalService, ...recovery],
      exports: [RunsService, RunDriver, ToolApprovalService, OrchestratorModule, runs],
    };
    byWorker.set(worker, made);
    return made;
  }
}
