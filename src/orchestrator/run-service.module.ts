import { DynamicModule, Module } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { perConfig } from '../config/per-config';
import { RunsModule } from '../runs/runs.module';
import { OrchestratorModule } from './orchestrator.module';
import { RunDriver } from './run-driver.service';
import { RunRecovery } from './run-recovery.service';
import { RunsService } from './runs.service';
import { ToolApprovalService } from './tool-approval.service';

/**
 * The run service and the one run driver over the queue and the run store: what REST v1, the LangGraph API,
 * the embed facade and the worker process import. One module object per (config, worker), like RunsModule.
 */
@Module({})
export class RunServiceModule {
  static register(config: AppConfig, worker = config.runWorker): DynamicModule {
    return registered(config, worker);
  }
}

const registered = perConfig((config, worker) => {
  const runs = RunsModule.register(config, worker);
  // the reconciler runs where runs are executed: every process of the in-process queue, BullMQ workers
  const recovery = !config.redisUrl || worker ? [RunRecovery] : [];
  return {
    module: RunServiceModule,
    imports: [OrchestratorModule, runs],
    providers: [RunsService, RunDriver, ToolApprovalService, ...recovery],
    exports: [RunsService, RunDriver, ToolApprovalService, OrchestratorModule, runs],
  };
});
