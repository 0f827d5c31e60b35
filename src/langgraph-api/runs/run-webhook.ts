import { Injectable, Logger } from '@nestjs/common';

import { AppConfig } from '../../config/app-config';
import type { RunEntity } from '../../database/entities';
import { checkUrl, safeFetch } from '../../tools/general/network-guard';
import { InvalidRequestException } from '../errors';
import { CustomHttpApp } from '../http-app/custom-http-app';
import { toApiRun } from './run-wire';

const WEBHOOK_TIMEOUT_MS = 10_000;
const WEBHOOK_MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * A run's `webhook`: the final Run object (with `run_started_at`, `run_ended_at`, `webhook_sent_at`, the thread's
 * `values` and `error` when it failed, as LangGraph Server sends it) is POSTed to the URL once the run has ended.
 * Under the tools' SSRF guard (network-guard.ts): http(s) only, no private, loopback or internal addresses unless
 * the host is in WEBHOOK_ALLOWED_HOSTS, the connection pinned to the checked addresses, no redirects followed.
 * A path (`/custom/webhook`) is a route of langgraph.json's http.app, called in process, as LangGraph Platform does.
 */
@Injectable()
export class RunWebhooks {
  private readonly logger = new Logger(RunWebhooks.name);

  constructor(
    private readonly config: AppConfig,
    private readonly httpApp: CustomHttpApp,
  ) {}

  /** Refuses (422) a webhook URL the guard would refuse, before the run is accepted. */
  async check(url: string): Promise<void> {
    if (url.startsWith('/')) {
      if (!this.httpApp.configured)
        throw new InvalidRequestException('webhook: a path needs the http.app of langgraph.json; send an absolute URL');
      return;
    }
    try {
      await checkUrl(new URL(url), { timeoutMs: WEBHOOK_TIMEOUT_MS, maxBytes: 0, allowedPrivateHosts: this.config.webhookAllowedHosts });
    } catch (err) {
      throw new InvalidRequestException(`webhook: ${(err as Error).message}`);
    }
  }

  /** Posts the ended run; true when the receiver answered 2xx (a failure is logged; WebhookDelivery retries). */
  async send(url: string, run: RunEntity, values: unknown): Promise<boolean> {
    const payload = {
      ...toApiRun(run),
      run_started_at: (run.startedAt ?? run.createdAt).toISOString(),
      run_ended_at: (run.finishedAt ?? run.updatedAt ?? new Date()).toISOString(),
      webhook_sent_at: new Date().toISOString(),
      values: values ?? null,
      ...(run.status === 'failed' ? { error: run.error?.message ?? run.error?.code ?? 'run failed' } : {}),
    };
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) };
    try {
      const res = url.startsWith('/')
        ? await this.httpApp.fetch(url, init)
        : await safeFetch(url, init, {
            timeoutMs: WEBHOOK_TIMEOUT_MS,
            maxBytes: WEBHOOK_MAX_RESPONSE_BYTES,
            allowedPrivateHosts: this.config.webhookAllowedHosts,
            maxRedirects: 0,
          });
      if (!res.ok) this.logger.warn({ msg: 'webhook answered with an error', run_id: run.id, status: res.status });
      return res.ok;
    } catch (err) {
      this.logger.warn({ msg: 'webhook not delivered', run_id: run.id, err: (err as Error).message });
      return false;
    }
  }
}
