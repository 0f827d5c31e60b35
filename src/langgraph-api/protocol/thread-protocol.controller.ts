import { Body, Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';

import { Tenant } from '../../auth/tenant.guard';
import { SseWriter } from '../../http/sse-writer';
import { ThreadNotFoundException } from '../errors';
import { LANGGRAPH_SSE } from '../sse-profile';
import { ZodPipe } from '../zod-body.pipe';
import { EventsFilterBody, ProtocolCommandBody } from './protocol.schemas';
import type { ProtocolCommand } from './protocol-types';
import { ThreadProtocolService } from './thread-protocol.service';

const THREAD_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** An id that cannot be a session id is answered like an unknown one. */
function known(id: string): string {
  if (!THREAD_ID.test(id)) throw new ThreadNotFoundException(id);
  return id;
}

/**
 * The thread event protocol over HTTP (the SDK's `ThreadStream` with its SSE transport): commands, and a
 * thread's events as Server-Sent Events (`id:` is the event's per-thread seq). A client going away closes its
 * stream and nothing else: the run goes on.
 */
@Controller('threads/:thread_id')
export class ThreadProtocolController {
  constructor(private readonly protocol: ThreadProtocolService) {}

  @Post('commands')
  @HttpCode(200)
  command(@Tenant() tenantId: string, @Param('thread_id') threadId: string, @Body(new ZodPipe(ProtocolCommandBody)) body: ProtocolCommand) {
    return this.protocol.command(tenantId, known(threadId), body);
  }

  @Post('stream/events')
  async events(
    @Tenant() tenantId: string,
    @Param('thread_id') threadId: string,
    @Body(new ZodPipe(EventsFilterBody)) filter: ReturnType<typeof EventsFilterBody.parse>,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    await this.protocol.authorizeStream(tenantId, known(threadId)); // 404 before the stream starts
    const stream = new SseWriter(res, LANGGRAPH_SSE);
    try {
      for await (const e of this.protocol.events(tenantId, threadId, filter, gone.signal)) stream.send(e.method, e, e.event_id);
    } finally {
      stream.end();
    }
    void req;
  }
}
