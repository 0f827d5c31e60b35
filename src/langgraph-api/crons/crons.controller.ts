import { Body, Controller, Delete, HttpCode, Param, Patch, Post } from '@nestjs/common';

import { Tenant } from '../../auth/tenant.guard';
import { ThreadNotFoundException } from '../errors';
import { ZodPipe } from '../zod-body.pipe';
import {
  CronCount,
  type CronCountBody,
  CronCreate,
  type CronCreateBody,
  CronPatch,
  type CronPatchBody,
  CronSearch,
  type CronSearchBody,
} from './cron-schemas';
import { CronsService } from './crons.service';

const THREAD_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** LangGraph Server crons: `/runs/crons...` (stateless, or any cron by id) and `/threads/{id}/runs/crons`. */
@Controller()
export class CronsController {
  constructor(private readonly crons: CronsService) {}

  @Post('runs/crons')
  @HttpCode(200)
  create(@Tenant() tenantId: string, @Body(new ZodPipe(CronCreate)) body: CronCreateBody) {
    return this.crons.create(tenantId, null, body);
  }

  @Post('threads/:threadId/runs/crons')
  @HttpCode(200)
  createForThread(@Tenant() tenantId: string, @Param('threadId') threadId: string, @Body(new ZodPipe(CronCreate)) body: CronCreateBody) {
    if (!THREAD_ID.test(threadId)) throw new ThreadNotFoundException(threadId);
    return this.crons.create(tenantId, threadId, body);
  }

  @Post('runs/crons/search')
  @HttpCode(200)
  search(@Tenant() tenantId: string, @Body(new ZodPipe(CronSearch)) body: CronSearchBody) {
    return this.crons.search(tenantId, body);
  }

  @Post('runs/crons/count')
  @HttpCode(200)
  count(@Tenant() tenantId: string, @Body(new ZodPipe(CronCount)) body: CronCountBody) {
    return this.crons.count(tenantId, body);
  }

  @Patch('runs/crons/:cronId')
  update(@Tenant() tenantId: string, @Param('cronId') cronId: string, @Body(new ZodPipe(CronPatch)) body: CronPatchBody) {
    return this.crons.update(tenantId, cronId, body);
  }

  @Delete('runs/crons/:cronId')
  @HttpCode(204)
  async delete(@Tenant() tenantId: string, @Param('cronId') cronId: string): Promise<void> {
    await this.crons.delete(tenantId, cronId);
  }
}
