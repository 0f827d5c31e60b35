import { Injectable } from '@nestjs/common';

import { DEFAULT_TENANT } from '../auth/tenant';
import type { ChatResult } from '../core/chat-result';
import { type JobView, RunsService, toJobView } from '../orchestrator/runs.service';
import { RunEndNotSeen, RunEnds } from '../runs/run-ends.service';
import { RunStore } from '../runs/store/run-store';

/** One turn asked for in-process (the body of `POST /v1/chat` and `/v1/jobs`, in camelCase). */
export interface TurnInput {
  message: string;
  sessionId?: string;
  agent?: string;
  /** default `default` (the tenant of a service without API keys) */
  tenantId?: string;
  metadata?: Record<string, unknown>;
}

export type { ChatResult, JobView };

/**
 * What a host application calls instead of HTTP: the same turns, queue, records and limits as REST v1
 * (`chat` ≙ POST /v1/chat, `enqueue` ≙ POST /v1/jobs, `getJob` ≙ GET /v1/jobs/{id},
 * `getResult` ≙ GET /v1/sessions/{id}/result). Exported from the package as `AgentOrchestrator`.
 */
@Injectable()
export class AgentOrchestratorFacade {
  constructor(
    private readonly jobs: RunsService,
    private readonly runs: RunStore,
    private readonly ends: RunEnds,
  ) {}

  /** One turn, answered when it has finished. */
  chat(input: TurnInput): Promise<ChatResult> {
    return this.jobs.chat(requestOf(input));
  }

  /** The turn queued; a worker (this process unless `worker: false`) runs it. */
  async enqueue(input: TurnInput): Promise<{ jobId: string; sessionId: string; status: string }> {
    const run = await this.jobs.submit(requestOf(input));
    return { jobId: run.id, sessionId: run.sessionId, status: run.status };
  }

  /** A job's status (and result once it has one); another tenant's job is not found. */
  async getJob(jobId: string, tenantId = DEFAULT_TENANT): Promise<JobView> {
    await this.runs.getForTenant(jobId, tenantId, 'job');
    return this.jobs.get(jobId);
  }

  /** The latest finished turn's result of a session, or null while it has none. */
  async getResult(sessionId: string, tenantId = DEFAULT_TENANT): Promise<ChatResult | null> {
    const run = await this.runs.latestFinished(sessionId, tenantId);
    return run?.result ?? null;
  }

  /** Waits until the job has ended (RunEnds.awaitEnd) and returns its final view; throws past `timeoutMs`. */
  async waitForJob(jobId: string, tenantId = DEFAULT_TENANT, timeoutMs = 120_000): Promise<JobView> {
    await this.runs.getForTenant(jobId, tenantId, 'job');
    try {
      return toJobView(await this.ends.awaitEnd(jobId, { timeoutMs }));
    } catch (err) {
      if (err instanceof RunEndNotSeen) throw new Error(`job ${jobId} did not end within ${timeoutMs} ms (status ${err.run.status})`);
      throw err;
    }
  }
}

function requestOf(input: TurnInput) {
  return {
    message: input.message,
    session_id: input.sessionId,
    agent: input.agent,
    tenant_id: input.tenantId ?? DEFAULT_TENANT,
    metadata: input.metadata,
  };
}
