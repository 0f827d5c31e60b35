import { Body, Controller, Get, Headers, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';

import { Tenant } from '../../auth/tenant.guard';
import { RunNotFoundException } from '../../common/domain.exception';
import { idempotencyKey } from '../../runs/idempotency-key';
import { RunRecords } from '../../runs/records/run-records.repository';
import { JobView, RunsService } from '../../runs/runs.service';
import { ChatRequestDto } from '../dto/chat-request.dto';
import { SseStream } from '../sse';
import { TurnGate } from '../turn-gate';
import { isUuid } from './ids';

@Controller('v1/jobs')
export class JobsController {
  constructor(
    private readonly runs: RunsService,
    private readonly records: RunRecords,
    private readonly gate: TurnGate,
  ) {}

  /** The same turn, queued: 202 with the job id; read it back by job id or by session id. */
  @Post()
  @HttpCode(202)
  async submit(@Body() body: ChatRequestDto, @Tenant() tenantId: string, @Headers('idempotency-key') key?: string) {
    const run = await this.runs.submit({ ...(await this.gate.turn(body, tenantId)), idempotency_key: idempotencyKey(key) });
    return { job_id: run.id, session_id: run.sessionId, status: run.status };
  }

  @Get(':id')
  async get(@Param('id') id: string, @Tenant() tenantId: string): Promise<JobView> {
    await this.owned(id, tenantId);
    return this.runs.get(id);
  }

  /**
   * SSE of a queued run: `status` on every change (status, progress), then `result` when it ends — from the run
   * event bus, so whichever process executes the run. Events carry `id:` lines; a client reconnecting with
   * `Last-Event-ID` gets what it missed (within RUN_EVENTS_WINDOW), then the live events.
   */
  @Get(':id/events')
  async events(
    @Param('id') id: string,
    @Res() res: Response,
    @Tenant() tenantId: string,
    @Headers('last-event-id') lastEventId?: string,
  ): Promise<void> {
    await this.owned(id, tenantId); // 404 before the stream starts
    const sse = new SseStream(res);
    const stop = new AbortController();
    res.on('close', () => stop.abort());
    try {
      for await (const e of this.runs.follow(id, { lastEventId: lastEventId?.trim() || undefined, signal: stop.signal })) {
        sse.send(e.event, e.data, e.id);
      }
    } finally {
      stop.abort();
      sse.end();
    }
  }

  @Post(':id/cancel')
  @HttpCode(200)
  async cancel(@Param('id') id: string, @Tenant() tenantId: string): Promise<JobView> {
    await this.owned(id, tenantId);
    return this.runs.cancel(id);
  }

  /** Another tenant's job is answered exactly like a job that does not exist. */
  private async owned(id: string, tenantId: string): Promise<void> {
    if (!isUuid(id)) throw new RunNotFoundException(id.slice(0, 128));
    await this.records.getForTenant(id, tenantId);
  }
}
