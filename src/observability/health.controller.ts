import { Controller, Get, HttpStatus, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';

import { AppConfig } from '../config/app-config';
import { type Check, checkIndicators, HEALTH_INDICATORS, type HealthIndicator, timedCheck } from './health-indicator';

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
    const [model, indicators] = await Promise.all([
      this.config.modelConfigured ? timedCheck(() => this.pingModel()) : Promise.resolve<Check>({ status: 'not_configured' }),
      checkIndicators(this.indicators),
    ]);
    const { ok, checks } = indicators;
    const degraded = model.status === 'down' || indicators.degraded;
    res.status(ok ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE);
    const details: Record<string, unknown> = {};
    for (const indicator of this.indicators) Object.assign(details, indicator.details?.());
    return { status: !ok ? 'unavailable' : degraded ? 'degraded' : 'ok', checks: { ...checks, model }, ...details };
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
