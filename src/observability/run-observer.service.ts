import { Injectable } from '@nestjs/common';

import { withLogFields } from './log-context';
import { MetricsService } from './metrics.service';
import { RunObservation } from './run-observation';
import { endSpan, startSpan, withSpan } from './tracing';

export interface ObservedRun {
  id: string;
  sessionId: string;
  tenantId: string;
  agent: string;
  mode: string;
  attempts: number;
}

/**
 * Opens the observation of one execution of a run: its log context (tenant, session, run, agent), its span
 * (under the request's, or the job's carried trace context) and the RunObservation that model calls, tool
 * calls and graph steps report to (`currentRun()`).
 */
@Injectable()
export class RunObserver {
  constructor(private readonly metrics: MetricsService) {}

  async observe<T>(run: ObservedRun, fn: () => Promise<T>): Promise<T> {
    const span = startSpan(`invoke_agent ${run.agent}`, {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': run.agent,
      'agent.run_id': run.id,
      'agent.session_id': run.sessionId,
      'agent.run_mode': run.mode,
      'agent.run_attempt': run.attempts + 1,
      'enduser.tenant': run.tenantId,
    });
    const observation = new RunObservation(run.agent, this.metrics, span);
    const fields = { tenant_id: run.tenantId, session_id: run.sessionId, run_id: run.id, agent: run.agent };
    try {
      const out = await withLogFields(fields, () => withSpan(span, fn), observation);
      endSpan(span);
      return out;
    } catch (err) {
      // failed runs return their result; what throws is a parked or handed-back execution (not an error)
      span?.setAttribute('agent.run_outcome', (err as Error).name || 'error');
      endSpan(span);
      throw err;
    }
  }
}
