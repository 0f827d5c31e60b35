import { Controller, Get, HttpStatus, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';

import { AppConfig } from '../config/app-config';
import { HEALTH_INDICATORS, type HealthIndicator } from './health-indicator';

type Check = { status: 'up' | 'down' | 'not_configured'; detail?: string; ms?: number };
const CHECK_TIMEOUT_MS = 2000;

@Controller('health')
export class HealthController {
  constructor(
    @Inject(HEALTH_INDICATORS) private readonly indicators: HealthIndicator[],
    private readonly config: AppConfig,
  ) {}

  @Get('live')
  live() {
    return { status: 'ok' };
  }

  /**
   * 503 when a provided indicator (database, queue) is down; a down model endpoint only degrades (rules still
   * answer), as does a down MCP server (its tools are missing until it is back).
   */
  @Get('ready')
  async ready(@Res({ passthrough: true }) res: Response) {
    const notConfigured = Promise.resolve<Check>({ status: 'not_configured' });
    const [model, ...results] = await Promise.all([
      this.config.modelConfigured ? timed(() => this.pingModel()) : notConfigured,
      ...this.indicators.map((i) => (i.configured() ? timed(() => i.check()) : notConfigured)),
    ]);
    const ok = results.every((c, n) => c.status !== 'down' || this.indicators[n].degradesOnly);
    const degraded = model.status === 'down' || results.some((c) => c.status === 'down');
    res.status(ok ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE);
    const checks: Record<string, Check> = {};
    const details: Record<string, unknown> = {};
    this.indicators.forEach((indicator, n) => {
      checks[indicator.name] = results[n];
      Object.assign(details, indicator.details?.());
    });
    checks.model = model;
    return { status: !ok ? 'unavailable' : degraded ? 'degraded' : 'ok', checks, ...details };
  }

  /** GET {base}/models; a failure names the endpoint (never the key) and the cause under fetch's "fetch failed" */
  private async pingModel(): Promise<boolean> {
    const base = (this.config.llm.baseUrl ?? 'https://api.openai.com/v1').replace(/\/$/, '');
    try {
      const res = await fetch(`${base}/models`, {
        headers: this.config.llm.apiKey ? { authorization: `Bearer ${this.config.llm.apiKey}` } : {},
        signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
      });
      return res.status < 500;
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (err as Error).message;
      throw new Error(`${this.config.llm.baseUrl ? 'LLM_BASE_URL' : 'OpenAI'} ${base} did not answer: ${why}`);
    }
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
