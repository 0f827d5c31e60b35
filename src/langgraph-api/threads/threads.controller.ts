import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';

import { Tenant } from '../../auth/tenant.guard';
import { ThreadNotFoundException } from '../errors';
import {
  HistoryRequest,
  type HistoryRequestBody,
  queryBool,
  StateAtCheckpoint,
  type StateAtCheckpointBody,
  StateUpdate,
  type StateUpdateBody,
  ThreadCount,
  type ThreadCountBody,
  ThreadCreate,
  type ThreadCreateBody,
  ThreadPatch,
  type ThreadPatchBody,
  ThreadPrune,
  type ThreadPruneBody,
  ThreadSearch,
  type ThreadSearchBody,
} from '../schemas';
import { ZodPipe } from '../zod-body.pipe';
import { THREAD_ID, ThreadsService } from './threads.service';

/**
 * LangGraph Server `/threads` (langgraphjs `libs/langgraph-api/src/api/threads.mts`); a thread is a session.
 * Runs of a thread (`/threads/{id}/runs...`) are served by the runs controller of this module.
 */
@Controller('threads')
export class ThreadsController {
  constructor(private readonly threads: ThreadsService) {}

  @Post()
  @HttpCode(200)
  create(@Tenant() tenantId: string, @Body(new ZodPipe(ThreadCreate)) body: ThreadCreateBody) {
    return this.threads.create(tenantId, body);
  }

  @Post('search')
  @HttpCode(200)
  search(@Tenant() tenantId: string, @Body(new ZodPipe(ThreadSearch)) body: ThreadSearchBody) {
    return this.threads.search(tenantId, body);
  }

  @Post('count')
  @HttpCode(200)
  count(@Tenant() tenantId: string, @Body(new ZodPipe(ThreadCount)) body: ThreadCountBody) {
    return this.threads.count(tenantId, body);
  }

  /** Prunes threads now: `{ thread_ids, strategy }` → `{ pruned_count }` (ThreadsService.prune; docs/retention.md). */
  @Post('prune')
  @HttpCode(200)
  prune(@Tenant() tenantId: string, @Body(new ZodPipe(ThreadPrune)) body: ThreadPruneBody) {
    return this.threads.prune(tenantId, body);
  }

  @Get(':id')
  get(@Tenant() tenantId: string, @Param('id') id: string) {
    return this.threads.get(tenantId, known(id));
  }

  /** `Prefer: return=minimal`: 204 without a body once patched (the SDK's `update` with `returnMinimal`). */
  @Patch(':id')
  async patch(
    @Tenant() tenantId: string,
    @Param('id') id: string,
    @Body(new ZodPipe(ThreadPatch)) body: ThreadPatchBody,
    @Headers('prefer') prefer: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    const thread = await this.threads.patch(tenantId, known(id), body);
    if (!/(^|[\s,;])return=minimal\b/i.test(prefer ?? '')) return thread;
    res.status(204);
    return undefined;
  }

  @Delete(':id')
  @HttpCode(204)
  async delete(@Tenant() tenantId: string, @Param('id') id: string): Promise<void> {
    await this.threads.delete(tenantId, known(id));
  }

  @Post(':id/copy')
  @HttpCode(200)
  copy(@Tenant() tenantId: string, @Param('id') id: string) {
    return this.threads.copy(tenantId, known(id));
  }

  @Get(':id/state')
  state(@Tenant() tenantId: string, @Param('id') id: string, @Query('subgraphs') subgraphs?: string) {
    return this.threads.state(tenantId, known(id), null, queryBool(subgraphs));
  }

  @Post(':id/state')
  @HttpCode(200)
  updateState(@Tenant() tenantId: string, @Param('id') id: string, @Body(new ZodPipe(StateUpdate)) body: StateUpdateBody) {
    return this.threads.updateState(tenantId, known(id), body);
  }

  @Post(':id/state/checkpoint')
  @HttpCode(200)
  stateAt(@Tenant() tenantId: string, @Param('id') id: string, @Body(new ZodPipe(StateAtCheckpoint)) body: StateAtCheckpointBody) {
    return this.threads.state(tenantId, known(id), body.checkpoint, body.subgraphs ?? false);
  }

  @Get(':id/state/:checkpointId')
  stateAtId(
    @Tenant() tenantId: string,
    @Param('id') id: string,
    @Param('checkpointId') checkpointId: string,
    @Query('subgraphs') subgraphs?: string,
  ) {
    return this.threads.state(tenantId, known(id), { checkpoint_id: checkpointId }, queryBool(subgraphs));
  }

  @Post(':id/history')
  @HttpCode(200)
  history(@Tenant() tenantId: string, @Param('id') id: string, @Body(new ZodPipe(HistoryRequest)) body: HistoryRequestBody) {
    return this.threads.history(tenantId, known(id), body);
  }

  @Get(':id/history')
  historyGet(@Tenant() tenantId: string, @Param('id') id: string, @Query('limit') limit?: string, @Query('before') before?: string) {
    const q = new ZodPipe(HistoryRequest).transform({ limit: limit ? Number(limit) : undefined, before });
    return this.threads.history(tenantId, known(id), q);
  }
}

/** An id that cannot be a session id is answered like an unknown one. */
function known(id: string): string {
  if (!THREAD_ID.test(id)) throw new ThreadNotFoundException(id);
  return id;
}
