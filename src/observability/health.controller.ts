import { Controller, Get, HttpStatus, Res } from '@nestjs/common';
import type { Response } from 'express';
import { DataSource } from 'typeorm';

import { AppConfig } from '../config/app-config';
import { RunQueue } from '../runs/run-queue';

type Check = { status: 'up' | 'down' | 'not_configured'; detail?: string; ms?: number };
const CHECK_TIMEOUT_MS = 2000;

@Controller('health')
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: RunQueue,
    private readonly config: AppConfig,
  ) {}

  @Get('live')
  live() {
    return { status: 'ok' };
  }

  /** 503 when the database or the queue is down; a down model endpoint only degrades (rules still answer). */
  @Get('ready')
  async ready(@Res({ passthrough: true }) res: Response) {
    const [database, redis, model] = await Promise.all([
      timed(() => this.dataSource.query('SELECT 1').then(() => true)),
      this.queue.kind === 'inline' ? Promise.resolve<Check>({ status: 'not_configured' }) : timed(() => this.queue.ready()),
      this.config.modelConfigured ? timed(() => this.pingModel()) : Promise.resolve<Check>({ status: 'not_configured' }),
    ]);
    const ok = database.status === 'up' && redis.status !== 'down';
    res.status(ok ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE);
    return {
      status: !ok ? 'unavailable' : model.status === 'down' ? 'degraded' : 'ok',
      checks: { database, redis, model },
      queue: this.queue.kind,
    };
  }

  private async pingModel(): Promise<boolean> {
    const base = (this.config.llm.baseUrl ?? 'https://api.openai.com/v1').replace(/\/$/, '');
    const res = await fetch(`${base}/models`, {
      headers: this.config.llm.apiKey ? { authorization: `Bearer ${this.config.llm.apiKey}` } : {},
      signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
    });
    return res.status < 500;
  }
}

async function timed(check: () => Promise<boolean>): Promise<Check> {
  const start = Date.now();
  try {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, rej) => (timer = setTimeout(() => rej(new Error('timed out')), CHECK_TIMEOUT_MS)));
    const ok = await Promise.race([check(), timeout]).finally(() => clearTimeout(timer));
    return { status: ok ? 'up' : 'down', ms: Date.now() - start };
  } catch (err) {
    return { status: 'down', detail: (err as Error).message.slice(0, 200), ms: Date.now() - start };
  }
}
