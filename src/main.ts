import { Logger } from '@nestjs/common';

import { createApp } from './app.factory';
import { AppConfig } from './config/app-config';
import { logStartupFailure } from './observability/logger';

async function main(): Promise<void> {
  const config = new AppConfig(process.env);
  const app = await createApp(config);
  await app.listen(config.port, config.host);
  new Logger('Main').log(
    `listening on http://${config.host}:${config.port} — database: ${config.databaseUrl ? 'DATABASE_URL' : 'embedded'}, ` +
      `queue: ${config.redisUrl ? 'BullMQ' : 'in-process'}, worker: ${config.runWorker ? 'on' : 'off'}, model: ${config.modelConfigured ? (config.llm.model ?? 'configured') : 'none'}`,
  );
}

main().catch((err: Error) => {
  logStartupFailure('Main', err);
  process.exit(1);
});
