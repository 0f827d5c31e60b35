import { ConsoleLogger, LogLevel } from '@nestjs/common';

import type { AppConfig } from '../config/app-config';

const LEVELS: LogLevel[] = ['error', 'warn', 'log', 'debug', 'verbose'];

/** Nest's logger, JSON lines in production (LOG_FORMAT=json), up to LOG_LEVEL. */
export function createLogger(config: AppConfig): ConsoleLogger {
  const logLevels = LEVELS.slice(0, LEVELS.indexOf(config.logLevel) + 1);
  return new ConsoleLogger({ json: config.logFormat === 'json', logLevels, colors: config.logFormat !== 'json' });
}
