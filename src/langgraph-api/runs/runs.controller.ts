import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';

import { Tenant } from '../../auth/tenant.guard';
import { lastEventIdOf, SseWriter } from '../../http/sse-writer';
import { ThreadNotFoundException } from '../errors';
import { LANGGRAPH_SSE } from '../sse-profile';
import { ZodPipe } from '../zod-body.pipe';
import { LangGraphRunsService } from './lg-runs.service';
import { RunBody } from './run-body';
import { RunJoins, ThreadStreamQuery } from './run-joins';
import {
  type ApiStreamMode,
  CancelManyQuery,
  CancelQuery,
  RunBatchCreate,
  RunCancelMany,
  type RunCancelManyBody,
  RunCreate,
  type RunCreateBody,
  RunListQuery,
  selected,
} from './run-schemas';
import { type SseEvent, toApiRun } from './run-wire';

const ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** An id that cannot be a session id is answered like an unknown one. */
function known(id: string): string {
  if (!ID.test(id)) throw new ThreadNotFoundException(id);
  return id;
}

/**
 * LangGraph Server runs (langgraphjs `libs/langgraph-api/src/api/runs.mts`): background, wait and stream runs of a
 * thread, stateless runs on a temporary thread, list/get/join/join-stream/cancel/delete.
 */
@Controller()
export class RunsController {
  constructor(
    private readonly runs: LangGraphRunsService,
    private readonly joins: RunJoins,
  ) {}

  @Post('threads/:thread_id/runs')
  @HttpCode(200)
  async create(
    @Tenant() tenantId: string,
    @Param('thread_id') threadId: string,
    @RunBody(new ZodPipe(RunCreate)) body: RunCreateBody,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { run } = await this.runs.create(tenantId, known(threadId), body);
    res.setHeader('Content-Location', `/threads/${threadId}/runs/${run.id}`);
    return toApiRun(run);
  }

  @Post('runs')
  @HttpCode(200)
  async createStateless(
    @Tenant() tenantId: string,
    @RunBody(new ZodPipe(RunCreate)) body: RunCreateBody,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { run } = await this.runs.create(tenantId, null, body);
    res.setHeader('Content-Location', `/runs/${run.id}`);
    return toApiRun(run);
  }

  @Post('runs/cancel')
  @HttpCode(204)
  async cancelMany(
    @Tenant() tenantId: string,
    @Body(new ZodPipe(RunCancelMany)) body: RunCancelManyBody,
    @Query() query: Record<string, unknown>,
  ): Promise<void> {
    const q = new ZodPipe(CancelManyQuery).transform(query);
    await this.runs.cancelMany(tenantId, { ...body, thread_id: body.thread_id ? known(body.thread_id) : body.thread_id }, q.action);
  }

  @Post('runs/batch')
  @HttpCode(200)
  async batch(@Tenant() tenantId: string, @RunBody(new ZodPipe(RunBatchCreate)) bodies: RunCreateBody[]) {
    const out: Array<Record<string, unknown>> = [];
    for (const body of bodies) out.push(toApiRun((await this.runs.create(tenantId, null, body)).run));
    return out;
  }

  @Post('threads/:thread_id/runs/wait')
  @HttpCode(200)
  async wait(
    @Tenant() tenantId: string,
    @Param('thread_id') threadId: string,
    @RunBody(new ZodPipe(RunCreate)) body: RunCreateBody,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { run, threadId: id } = await this.runs.create(tenantId, known(threadId), body, { waited: true });
    res.setHeader('Content-Location', `/threads/${id}/runs/${run.id}`);
    return this.runs.join(tenantId, id, run.id, this.disconnectOf(req, body.on_disconnect === 'cancel' ? run.id : null), true);
  }

  @Post('runs/wait')
  @HttpCode(200)
  async waitStateless(
    @Tenant() tenantId: string,
    @RunBody(new ZodPipe(RunCreate)) body: RunCreateBody,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { run, threadId } = await this.runs.create(tenantId, null, body, { waited: true });
    res.setHeader('Content-Location', `/runs/${run.id}`);
    return this.runs.join(tenantId, threadId, run.id, this.disconnectOf(req, body.on_disconnect === 'cancel' ? run.id : null), true);
  }

  @Post('threads/:thread_id/runs/stream')
  async stream(
    @Tenant() tenantId: string,
    @Param('thread_id') threadId: string,
    @RunBody(new ZodPipe(RunCreate)) body: RunCreateBody,
    @Res() res: Response,
  ): Promise<void> {
    const { run, modes } = await this.runs.create(tenantId, known(threadId), body, { waited: true });
    await this.sse(res, `/threads/${threadId}/runs/${run.id}`, run.id, body.on_disconnect === 'cancel', (signal) =>
      this.runs.stream(run.id, modes, { signal, tenantId, threadId }),
    );
  }

  @Post('runs/stream')
  async streamStateless(
    @Tenant() tenantId: string,
    @RunBody(new ZodPipe(RunCreate)) body: RunCreateBody,
    @Res() res: Response,
  ): Promise<void> {
    const { run, modes, threadId } = await this.runs.create(tenantId, null, body, { waited: true });
    await this.sse(res, `/runs/${run.id}`, run.id, body.on_disconnect === 'cancel', (signal) =>
      this.runs.stream(run.id, modes, { signal, tenantId, threadId }),
    );
  }

  @Get('threads/:thread_id/runs')
  async list(@Tenant() tenantId: string, @Param('thread_id') threadId: string, @Query() query: Record<string, unknown>) {
    const q = new ZodPipe(RunListQuery).transform(query);
    return selected(await this.runs.list(tenantId, known(threadId), q), q.select);
  }

  /**
   * Joins a run by its id alone (a stateless run's): its events as its own stream has them (`stream_mode`: some of
   * them), after `Last-Event-ID`.
   * An unknown run, or one on a thread the caller may not read, is a stream without events (as LangGraph Server
   * answers an unknown one); `cancel_on_disconnect` cancels a run the caller may see when the client goes away.
   */
  @Get('runs/:run_id/stream')
  async joinStatelessStream(
    @Tenant() tenantId: string,
    @Param('run_id') runId: string,
    @Query('cancel_on_disconnect') cancelOnDisconnect: string | undefined,
    @Query('stream_mode') streamMode: string | string[] | undefined,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const run = ID.test(runId) ? await this.joins.visibleRun(tenantId, runId) : null;
    const cancel = !!run && (cancelOnDisconnect === '1' || cancelOnDisconnect === 'true');
    await this.sse(res, `/runs/${runId}`, runId, cancel, (signal) =>
      run ? this.joins.runStream(run, { tenantId, lastEventId: lastEventId || undefined, signal, only: listOf(streamMode) }) : noEvents(),
    );
  }

  /**
   * Joins a thread's stream (the SDK's `threads.joinStream`): its running and queued runs' events, one run after the
   * other, until none is left (RunJoins.threadStream). 404 before the stream when the caller may not read the thread.
   * Closing it never cancels a run.
   */
  @Get('threads/:thread_id/stream')
  async joinThreadStream(
    @Tenant() tenantId: string,
    @Param('thread_id') threadId: string,
    @Query() query: Record<string, unknown>,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const { stream_mode: modes } = new ZodPipe(ThreadStreamQuery).transform(query);
    await this.joins.checkThread(tenantId, known(threadId));
    await this.sse(res, `/threads/${threadId}/stream`, threadId, false, (signal) =>
      this.joins.threadStream(tenantId, threadId, modes, { lastEventId: lastEventId || undefined, signal }),
    );
  }

  @Get('threads/:thread_id/runs/:run_id')
  get(@Tenant() tenantId: string, @Param('thread_id') threadId: string, @Param('run_id') runId: string) {
    return this.runs.get(tenantId, known(threadId), runId);
  }

  @Delete('threads/:thread_id/runs/:run_id')
  @HttpCode(204)
  async delete(@Tenant() tenantId: string, @Param('thread_id') threadId: string, @Param('run_id') runId: string): Promise<void> {
    await this.runs.delete(tenantId, known(threadId), runId);
  }

  @Get('threads/:thread_id/runs/:run_id/join')
  join(@Tenant() tenantId: string, @Param('thread_id') threadId: string, @Param('run_id') runId: string, @Req() req: Request) {
    return this.runs.join(tenantId, known(threadId), runId, this.disconnectOf(req, null));
  }

  @Get('threads/:thread_id/runs/:run_id/stream')
  async joinStream(
    @Tenant() tenantId: string,
    @Param('thread_id') threadId: string,
    @Param('run_id') runId: string,
    @Query('cancel_on_disconnect') cancelOnDisconnect: string | undefined,
    @Query('stream_mode') streamMode: string | string[] | undefined,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    if (await this.runs.hiddenByAuth(tenantId, known(threadId))) {
      // as the platform: a thread the auth handler's filter hides is one error event, not a 404 before the stream
      const hidden = { event: 'error', data: { error: 'Error', message: '404: Thread not found' } };
      return this.sse(res, `/threads/${threadId}/runs/${runId}`, runId, false, () => oneEvent(hidden));
    }
    const run = await this.runs.get(tenantId, known(threadId), runId); // 404 before the stream starts
    // the events the run streams for its own request (the same ones, with the same ids, as the stream that created it)
    const modes = ((run.kwargs as { stream_mode?: ApiStreamMode[] } | undefined)?.stream_mode ?? null) || null;
    const cancel = cancelOnDisconnect === '1' || cancelOnDisconnect === 'true';
    await this.sse(res, `/threads/${threadId}/runs/${runId}`, runId, cancel, (signal) =>
      this.runs.stream(runId, modes, { signal, lastEventId: lastEventIdOf(lastEventId), tenantId, threadId, only: listOf(streamMode) }),
    );
  }

  @Post('threads/:thread_id/runs/:run_id/cancel')
  async cancel(
    @Tenant() tenantId: string,
    @Param('thread_id') threadId: string,
    @Param('run_id') runId: string,
    @Query() query: Record<string, unknown>,
    @Res() res: Response,
  ): Promise<void> {
    const q = new ZodPipe(CancelQuery).transform(query);
    await this.runs.stop(tenantId, known(threadId), runId, q.action, q.wait);
    res.status(q.wait ? 204 : 202).end();
  }

  /** Writes the events as Server-Sent Events; the client going away stops the stream (and cancels the run when asked). */
  private async sse(
    res: Response,
    location: string,
    runId: string,
    cancelOnDisconnect: boolean,
    events: (signal: AbortSignal) => AsyncIterable<SseEvent>,
  ): Promise<void> {
    let finished = false;
    const gone = () => {
      if (!finished && cancelOnDisconnect) void this.runs.cancelQuietly(runId);
    };
    // a client that went away while the run was being created closed its connection before this listener
    if (res.socket?.destroyed) gone();
    else res.on('close', gone);
    const sse = new SseWriter(res, { ...LANGGRAPH_SSE, headers: { 'Content-Location': location } });
    try {
      await sse.pipe(events(sse.signal));
    } finally {
      finished = true;
    }
  }

  /** A signal that aborts when the client disconnects (and cancels `runId` then, when given). */
  private disconnectOf(req: Request, runId: string | null): AbortSignal {
    const c = new AbortController();
    const gone = () => {
      c.abort();
      if (runId) void this.runs.cancelQuietly(runId);
    };
    // a client that went away while the run was being created closed its connection before this listener
    if (req.socket.destroyed) gone();
    else
      req.on('close', () => {
        if (req.complete && !req.socket.destroyed) return;
        gone();
      });
    return c.signal;
  }
}

async function* oneEvent(e: SseEvent): AsyncIterable<SseEvent> {
  yield e;
}

// eslint-disable-next-line require-yield -- a stream with no events
async function* noEvents(): AsyncIterable<SseEvent> {
  return;
}

/** A query parameter given once or repeated. */
function listOf(value: string | string[] | undefined): string[] | undefined {
  return value === undefined ? undefined : Array.isArray(value) ? value : [value];
}
