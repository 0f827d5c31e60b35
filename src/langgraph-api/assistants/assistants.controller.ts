import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';

import { Tenant } from '../../auth/tenant.guard';
import {
  AssistantCount,
  type AssistantCountBody,
  AssistantCreate,
  type AssistantCreateBody,
  AssistantLatest,
  type AssistantLatestBody,
  AssistantPatch,
  type AssistantPatchBody,
  AssistantSearch,
  type AssistantSearchBody,
  AssistantVersions,
  type AssistantVersionsBody,
  queryBool,
} from '../schemas';
import { ThreadsService } from '../threads/threads.service';
import { ZodPipe } from '../zod-body.pipe';
import { AssistantsService } from './assistants.service';

/** LangGraph Server `/assistants` (langgraphjs `libs/langgraph-api/src/api/assistants.mts`). */
@Controller('assistants')
export class AssistantsController {
  constructor(
    private readonly assistants: AssistantsService,
    private readonly threads: ThreadsService,
  ) {}

  @Post()
  @HttpCode(200)
  create(@Tenant() tenantId: string, @Body(new ZodPipe(AssistantCreate)) body: AssistantCreateBody) {
    return this.assistants.create(tenantId, body);
  }

  @Post('search')
  @HttpCode(200)
  async search(
    @Tenant() tenantId: string,
    @Body(new ZodPipe(AssistantSearch)) body: AssistantSearchBody,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { items, total } = await this.assistants.search(tenantId, body);
    const next = body.offset + items.length;
    if (next < total) res.setHeader('X-Pagination-Next', String(next));
    res.setHeader('X-Pagination-Total', String(total));
    return items;
  }

  @Post('count')
  @HttpCode(200)
  count(@Tenant() tenantId: string, @Body(new ZodPipe(AssistantCount)) body: AssistantCountBody) {
    return this.assistants.count(tenantId, body);
  }

  @Get(':id')
  get(@Tenant() tenantId: string, @Param('id') id: string) {
    return this.assistants.get(tenantId, id);
  }

  @Patch(':id')
  patch(@Tenant() tenantId: string, @Param('id') id: string, @Body(new ZodPipe(AssistantPatch)) body: AssistantPatchBody) {
    return this.assistants.patch(tenantId, id, body);
  }

  /** 200 with the deleted ids, as the reference answers; `delete_threads=true`: its threads (metadata.assistant_id) too. */
  @Delete(':id')
  async delete(@Tenant() tenantId: string, @Param('id') id: string, @Query('delete_threads') deleteThreads?: string) {
    const deleted = await this.assistants.delete(tenantId, id);
    if (queryBool(deleteThreads)) await this.threads.deleteOfAssistant(tenantId, id);
    return deleted;
  }

  @Get(':id/graph')
  graph(@Tenant() tenantId: string, @Param('id') id: string, @Query('xray') xray?: string) {
    const depth = xray !== undefined && /^\d+$/.test(xray) ? Number(xray) : queryBool(xray);
    return this.assistants.drawable(tenantId, id, depth);
  }

  @Get(':id/schemas')
  schemas(@Tenant() tenantId: string, @Param('id') id: string) {
    return this.assistants.schemas(tenantId, id);
  }

  @Get(':id/subgraphs')
  subgraphs(@Tenant() tenantId: string, @Param('id') id: string, @Query('recurse') recurse?: string) {
    return this.assistants.subgraphs(tenantId, id, undefined, queryBool(recurse));
  }

  @Get(':id/subgraphs/:namespace')
  subgraphsIn(
    @Tenant() tenantId: string,
    @Param('id') id: string,
    @Param('namespace') namespace: string,
    @Query('recurse') recurse?: string,
  ) {
    return this.assistants.subgraphs(tenantId, id, namespace, queryBool(recurse));
  }

  @Post(':id/versions')
  @HttpCode(200)
  versions(@Tenant() tenantId: string, @Param('id') id: string, @Body(new ZodPipe(AssistantVersions)) body: AssistantVersionsBody) {
    return this.assistants.versions(tenantId, id, body.metadata, body.limit, body.offset);
  }

  @Post(':id/latest')
  @HttpCode(200)
  latest(@Tenant() tenantId: string, @Param('id') id: string, @Body(new ZodPipe(AssistantLatest)) body: AssistantLatestBody) {
    return this.assistants.setLatest(tenantId, id, body.version);
  }
}
