import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';

import { isSessionId } from '../../auth/tenant';
import { Tenant } from '../../auth/tenant.guard';
import { NoResultException, RunNotFoundException, SessionNotFoundException } from '../../core/errors';
import { ConversationRepository } from '../../memory/conversation.repository';
import { sessionTitle } from '../../memory/session-title';
import { RunAdmission } from '../../orchestrator/run-admission.service';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation } from '../../platform/openapi-decorators';
import { RunStore } from '../../runs/store/run-store';
import { SessionStore } from '../../runs/store/session-store';
import { taintView } from '../../tools/thread-taint';
import { ApiErrors, ApiQueryParams } from '../dto/api-docs';
import { ChatResultDto } from '../dto/chat-result.dto';
import { RunTraceDto, toRunTrace } from '../dto/run-trace.dto';
import { SessionDto, SessionListDto } from '../dto/session.dto';
import { type SessionListQueryDto, SessionListQuerySchema } from '../dto/session-list.dto';
import { SessionAccess } from '../session-access';
import { query } from '../validation/zod-request.pipe';
import { isUuid } from './ids';

@ApiErrors()
@Controller('v1/sessions')
export class SessionsController {
  constructor(
    private readonly conversations: ConversationRepository,
    private readonly sessions: SessionStore,
    private readonly runs: RunStore,
    private readonly admission: RunAdmission,
    private readonly access: SessionAccess,
  ) {}

  /**
   * The tenant's sessions the caller may see, with their titles and summaries, most recently updated first (what
   * the console lists).
   */
  @Get()
  @ApiQueryParams(SessionListQuerySchema)
  @ApiOkResponse({ type: SessionListDto })
  async list(@Query(query(SessionListQuerySchema)) filter: SessionListQueryDto, @Tenant() tenantId: string): Promise<SessionListDto> {
    const sessions = await this.sessions.list(tenantId, filter.limit ?? 20, filter.agent, await this.access.listing());
    const titles = await this.conversations.titles(
      tenantId,
      sessions.map((s) => s.id),
    );
    return {
      sessions: sessions.map((s) => ({
        session_id: s.id,
        agent: s.agent,
        title: titles.get(s.id) ?? null,
        summary: s.summary,
        created_at: s.createdAt.toISOString(),
        updated_at: s.updatedAt.toISOString(),
      })),
    };
  }

  /** The conversation: every message, the running summary, the agent and the session's runs. */
  @Get(':id')
  @ApiOkResponse({ type: SessionDto })
  async get(@Param('id') id: string, @Tenant() tenantId: string): Promise<SessionDto> {
    const session = await this.access.session(tenantId, this.known(id), 'read');
    const [messages, runs, taint] = await Promise.all([
      this.conversations.history(id, tenantId),
      this.runs.listBySession(id, tenantId),
      this.sessions.taintOf(tenantId, id, { digest: false }),
    ]);
    return {
      session_id: session.id,
      agent: session.agent,
      title: sessionTitle(messages.find((m) => m.role === 'user')?.content),
      summary: session.summary,
      created_at: session.createdAt.toISOString(),
      updated_at: session.updatedAt.toISOString(),
      taint: taintView(taint),
      messages: messages.map((m) => ({ role: m.role, content: m.content, run_id: m.runId, created_at: m.createdAt.toISOString() })),
      runs: runs.map((r) => ({
        run_id: r.id,
        status: r.status,
        mode: r.mode,
        llm_calls: r.llmCalls,
        created_at: r.createdAt.toISOString(),
        finished_at: r.finishedAt?.toISOString() ?? null,
      })),
    };
  }

  /** The latest finished run's ChatResult. */
  @Get(':id/result')
  @ApiOkResponse({ type: ChatResultDto })
  async result(@Param('id') id: string, @Tenant() tenantId: string) {
    await this.access.session(tenantId, this.known(id), 'read');
    const run = await this.runs.latestFinished(id, tenantId);
    if (!run?.result) throw new NoResultException(id);
    return run.result;
  }

  /** The run's trace, one shape for every agent (see RunTraceDto). */
  @Get(':id/runs/:runId/trace')
  @ApiOperation({ summary: 'a run’s trace: decisions, plan, steps, tool calls, model calls with timing and tokens, node timings' })
  @ApiOkResponse({ type: RunTraceDto })
  async trace(@Param('id') id: string, @Param('runId') runId: string, @Tenant() tenantId: string): Promise<RunTraceDto> {
    await this.access.session(tenantId, this.known(id), 'read');
    if (!isUuid(runId)) throw new RunNotFoundException(runId, 'run');
    const run = await this.runs.getForTenant(runId, tenantId, 'run');
    if (run.sessionId !== id) throw new RunNotFoundException(runId, 'run');
    return toRunTrace(run);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse()
  async remove(@Param('id') id: string, @Tenant() tenantId: string): Promise<void> {
    await this.access.session(tenantId, this.known(id), 'delete');
    await this.admission.deleteSession(id, tenantId);
  }

  private known(id: string): string {
    if (!isSessionId(id)) throw new SessionNotFoundException(id.slice(0, 128));
    return id;
  }
}
