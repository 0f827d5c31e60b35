import 'reflect-metadata';
import './settings/all-settings'; // the settings slices AppConfig is built from

import { ConsoleLogger, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger as PinoLogger } from 'nestjs-pino';

import { WorkerModule } from './app.module';
import { AppConfig } from './config/app-config';
import { DatabaseHealthIndicator } from './database/database.health';
import { probeServices } from './database/service-probe';
import { serveHealth } from './observability/health-server';
import { logStartupFailure } from './observability/logger';
import { installPlatformPatches } from './platform/install-platform-patches';
import { RunQueueHealthIndicator } from './runs/run-queue.health';

/** Worker only: scale run execution over processes and machines (same Redis and Postgres as the API). */
async function main(): Promise<void> {
  installPlatformPatches();
  const config = new AppConfig(process.env);
  if (!config.redisUrl || !config.databaseUrl) {
    throw new Error('worker.ts needs REDIS_URL (or REDIS_SENTINELS) and DATABASE_URL (shared with the API)');
  }
  await probeServices(config);
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
    bufferLogs: true,
    ...(config.logFormat === 'pretty' ? {} : { logger: new ConsoleLogger({ json: true }) }), // JSON lines until pino takes over
  });
  app.useLogger(app.get(PinoLogger));
  app.enableShutdownHooks();
  const log = new Logger('Worker');
  log.log(
    `consuming runs with concurrency ${config.workerConcurrency}; a crashed worker's runs are taken over within ` +
      `${config.runLockMs + config.runStalledCheckMs} ms (RUN_LOCK_MS + RUN_STALLED_CHECK_MS); SIGTERM hands runs back after ${config.durability.shutdownGraceMs} ms`,
  );
  // probes (WORKER_HEALTH_PORT): it answers until the process exits (Nest re-raises SIGTERM after its shutdown hooks)
  if (config.workerHealthPort !== undefined) {
    const indicators = [app.get(DatabaseHealthIndicator), app.get(RunQueueHealthIndicator)];
    const health = await serveHealth(indicators, config.workerHealthPort, config.host);
    log.log(`health: http://${config.host}:${health.port}/health/live and /health/ready (WORKER_HEALTH_PORT)`);
  }
}

main().catch((err: Error) => {
  logStartupFailure('Worker', err);
  process.exit(1);
});
