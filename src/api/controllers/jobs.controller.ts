import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { RunNotFoundException } from '../../common/domain.exception';
import { JobView, RunsService } from '../../runs/runs.service';
import { ChatRequestDto } from '../dto/chat-request.dto';
import { isUuid } from './ids';

@Controller('v1/jobs')
export class JobsController {
  constructor(private readonly runs: RunsService) {}

  /** The same turn, queued: 202 with the job id; read it back by job id or by session id. */
  @Post()
  @HttpCode(202)
  async submit(@Body() body: ChatRequestDto) {
    const run = await this.runs.submit(body);
    return { job_id: run.id, session_id: run.sessionId, status: 'queued' as const };
  }

  @Get(':id')
  get(@Param('id') id: string): Promise<JobView> {
    if (!isUuid(id)) throw new RunNotFoundException(id);
    return this.runs.get(id);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  cancel(@Param('id') id: string): Promise<JobView> {
    if (!isUuid(id)) throw new RunNotFoundException(id);
    return this.runs.cancel(id);
  }
}
