import { Injectable } from '@nestjs/common';

import { type AuthFilters, matchesFilters } from '../auth/auth-filters';
import { ResourceAccess } from '../auth/resource-access';
import { RunNotFoundException, SessionNotFoundException } from '../core/errors';
import type { RunEntity, SessionEntity } from '../database/entities';
import type { TurnRequest } from '../orchestrator/run-admission.service';
import { RunStore } from '../runs/store/run-store';
import { SessionStore } from '../runs/store/session-store';

/**
 * Who may see what of REST v1 inside a tenant, by the same rules as the LangGraph API (auth/resource-access.ts):
 * a session is a `threads` resource — its reads `threads:read`, its listing `threads:search`, a chat turn
 * `threads:create_run`, its deletion `threads:delete` — and a job (a run) is seen through its session (`read`;
 * cancelling, approving or rejecting it `update`). What the caller may not see is answered as missing (404).
 */
@Injectable()
export class SessionAccess {
  constructor(
    private readonly access: ResourceAccess,
    private readonly sessions: SessionStore,
    private readonly runs: RunStore,
  ) {}

  /** The tenant's session as the caller may see it for `action`; else SESSION_NOT_FOUND. */
  async session(tenantId: string, id: string, action: 'read' | 'delete'): Promise<SessionEntity> {
    const filters = await this.access.authorize('threads', action, { thread_id: id });
    const session = await this.sessions.get(id, tenantId);
    if (!matchesFilters(session.metadata, filters)) throw new SessionNotFoundException(id);
    return session;
  }

  /** The filter of a session listing. */
  listing(): Promise<AuthFilters | undefined> {
    return this.access.authorize('threads', 'search', {});
  }

  /**
   * A chat turn: on an existing session the caller may run on it (else SESSION_NOT_FOUND); a session it starts
   * takes the metadata the auth gives it (its owner).
   */
  async turn(turn: TurnRequest & { tenant_id: string }): Promise<TurnRequest> {
    const value: Record<string, unknown> = { thread_id: turn.session_id ?? null, metadata: {} };
    const filters = await this.access.authorize('threads', 'create_run', value);
    if (turn.session_id && filters) {
      const existing = await this.sessions.find(turn.session_id, turn.tenant_id);
      if (existing && !matchesFilters(existing.metadata, filters)) throw new SessionNotFoundException(turn.session_id);
    }
    const metadata = value.metadata as Record<string, unknown> | undefined;
    return metadata && Object.keys(metadata).length ? { ...turn, session_metadata: metadata } : turn;
  }

  /** The tenant's job (run) as the caller may see it for `action`, through its session; else RUN_NOT_FOUND. */
  async job(tenantId: string, id: string, action: 'read' | 'update'): Promise<RunEntity> {
    const run = await this.runs.getForTenant(id, tenantId);
    const filters = await this.access.authorize('threads', action, { thread_id: run.sessionId });
    // read through its session: an expired session (retention) takes its jobs out of sight with it
    const session = await this.sessions.find(run.sessionId, tenantId);
    if (!session || (filters && !matchesFilters(session.metadata, filters))) throw new RunNotFoundException(id);
    return run;
  }
}
