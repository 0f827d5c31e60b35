import 'reflect-metadata';

import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

import { WorkerModule } from './app.module';
import { AppConfig } from './config/app-config';
import { createLogger } from './observability/app-logger';

/** Worker only: scale run execution over processes and machines (same Redis and Postgres as the API). */
async function main(): Promise<void> {
  const config = new AppConfig(process.env);
  if (!config.redisUrl || !config.databaseUrl) {
    throw new Error('worker.ts needs REDIS_URL and DATABASE_URL (shared with the API)');
  }
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), { logger: createLogger(config) });
  app.enableShutdownHooks();
  new Logger('Worker').log(`consuming runs with concurrency ${config.workerConcurrency}`);
}

main().catch((err: Error) => {
  new Logger('Worker').error(`failed to start: ${err.message}`);
  process.exit(1);
});
