import { Body, Controller, Get, Headers, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';

import { Tenant } from '../../auth/tenant.guard';
import { RunNotFoundException } from '../../core/errors';
import { lastEventIdOf } from '../../http/sse-writer';
import { JobView, RunsService } from '../../orchestrator/runs.service';
import { ApiAcceptedResponse, ApiHeader, ApiOkResponse } from '../../platform/openapi-decorators';
import { idempotencyKey } from '../../runs/idempotency-key';
import { ApiErrors, ApiIdempotencyKey, ApiRequestBody, ApiSse } from '../dto/api-docs';
import { type ChatRequestDto, ChatRequestSchema } from '../dto/chat-request.dto';
import { JobAcceptedDto, JobDto } from '../dto/job.dto';
import { SessionAccess } from '../session-access';
import { SseStream } from '../sse';
import { TurnGate } from '../turn-gate';
import { body } from '../validation/zod-request.pipe';
import { isUuid } from './ids';

@ApiErrors()
@Controller('v1/jobs')
export class JobsController {
  constructor(
    private readonly runs: RunsService,
    private readonly gate: TurnGate,
    private readonly access: SessionAccess,
  ) {}

  /** The same turn, queued: 202 with the job id; read it back by job id or by session id. */
  @Post()
  @HttpCode(202)
  @ApiIdempotencyKey()
  @ApiRequestBody('ChatRequestDto')
  @ApiAcceptedResponse({ type: JobAcceptedDto })
  async submit(
    @Body(body(ChatRequestSchema)) request: ChatRequestDto,
    @Tenant() tenantId: string,
    @Headers('idempotency-key') key?: string,
  ): Promise<JobAcceptedDto> {
    const run = await this.runs.submit({ ...(await this.gate.turn(request, tenantId)), idempotency_key: idempotencyKey(key) });
    return { job_id: run.id, session_id: run.sessionId, status: run.status };
  }

  @Get(':id')
  @ApiOkResponse({ type: JobDto })
  async get(@Param('id') id: string, @Tenant() tenantId: string): Promise<JobView> {
    await this.owned(id, tenantId, 'read');
    return this.runs.get(id);
  }

  /**
   * SSE of a queued run: `status` on every change (status, progress), then `result` when it ends — from the run
   * event bus, so whichever process executes the run. Events carry `id:` lines; a client reconnecting with
   * `Last-Event-ID` gets what it missed (within RUN_EVENTS_WINDOW), then the live events.
   */
  @Get(':id/events')
  @ApiHeader({ name: 'last-event-id', required: false, description: 'resume after this event id' })
  @ApiSse('`status` on every change, then `result` (a ChatResult)')
  async events(
    @Param('id') id: string,
    @Res() res: Response,
    @Tenant() tenantId: string,
    @Headers('last-event-id') lastEventId?: string,
  ): Promise<void> {
    await this.owned(id, tenantId, 'read'); // 404 before the stream starts
    const sse = new SseStream(res);
    const stop = new AbortController();
    res.on('close', () => stop.abort());
    try {
      for await (const e of this.runs.follow(id, { lastEventId: lastEventIdOf(lastEventId), signal: stop.signal })) {
        sse.send(e.event, e.data, e.id);
      }
    } finally {
      stop.abort();
      sse.end();
    }
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOkResponse({ type: JobDto })
  async cancel(@Param('id') id: string, @Tenant() tenantId: string): Promise<JobView> {
    await this.owned(id, tenantId, 'update');
    return this.runs.cancel(id);
  }

  /** Another tenant's job, or one the caller may not see (another user's), is answered like a job that does not exist. */
  private async owned(id: string, tenantId: string, action: 'read' | 'update'): Promise<void> {
    if (!isUuid(id)) throw new RunNotFoundException(id.slice(0, 128));
    await this.access.job(tenantId, id, action);
  }
}
