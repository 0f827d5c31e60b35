import './settings/all-settings'; // the settings slices AppConfig is built from

import { Logger } from '@nestjs/common';

import { runApiProcesses } from './cluster';
import { AppConfig } from './config/app-config';
import { probeServices } from './database/service-probe';
import { logStartupFailure } from './observability/logger';
import { installPlatformPatches } from './platform/install-platform-patches';

async function main(): Promise<void> {
  installPlatformPatches();
  const config = new AppConfig(process.env);
  await probeServices(config);
  await runApiProcesses(config, (processes) => serve(config, processes));
}

/** One API process. The app is loaded here, not above: a cluster's primary never builds it. */
async function serve(config: AppConfig, processes: number): Promise<void> {
  const { createApp } = await import('./app.factory');
  const app = await createApp(config);
  await app.listen(config.port, config.host);
  new Logger('Main').log(
    `listening on http://${config.host}:${config.port} — processes: ${processes}, database: ${config.databaseUrl ? 'DATABASE_URL' : 'embedded'}, ` +
      `queue: ${config.redisUrl ? 'BullMQ' : 'inline'}, worker: ${config.runWorker ? 'on' : 'off'}, model: ${modelLine(config)}`,
  );
}

/** the model and where it is served (LLM_BASE_URL, never the key) */
function modelLine(config: AppConfig): string {
  if (!config.modelConfigured) return 'none (rules and tools only)';
  return `${config.llm.model ?? 'configured'} at ${config.llm.baseUrl ?? 'OpenAI'}`;
}

main().catch((err: Error) => {
  logStartupFailure('Main', err);
  process.exit(1);
});
