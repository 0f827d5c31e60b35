import { AsyncResource } from 'node:async_hooks';

import { Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';

import { StreamTickets } from '../../../auth/stream-ticket';
import { currentPrincipal } from '../../../auth/tenant';
import { Tenant } from '../../../auth/tenant.guard';
import { DomainException } from '../../../core/errors';
import { ThreadNotFoundException } from '../../errors';
import { ThreadProtocolService } from '../thread-protocol.service';
import { ProtocolSocket } from './protocol-socket';
import { SocketUpgrades } from './socket-upgrades';

/** 426 for a plain GET of the socket route: it speaks WebSocket only. */
class UpgradeRequiredException extends DomainException {
  constructor() {
    super('UPGRADE_REQUIRED', 'this route is a WebSocket: connect with an upgrade (Connection: Upgrade, Upgrade: websocket)', 426);
    this.headers = { Upgrade: 'websocket', Connection: 'Upgrade' };
  }
}

/** 422 for a `since` that is not a non-negative integer. */
class InvalidSinceException extends DomainException {
  constructor() {
    super('INVALID_SINCE', '`since` must be a non-negative integer (the last seq the client has)', 422);
  }
}

/**
 * The thread event protocol's WebSocket (`GET /threads/{id}/stream/events` with an upgrade; SocketUpgrades
 * brings the upgrade through the HTTP pipeline to here) and the ticket a browser opens it with (`POST
 * /threads/{id}/stream/ticket`, which a browser sends with its usual credentials). Both need `threads:read` on
 * the thread, or a thread that does not exist yet (`run.start` creates it), as the protocol service decides;
 * the socket's commands are authorized one by one by that service, as the caller.
 */
@Controller('threads')
export class StreamSocketController {
  constructor(
    private readonly sockets: SocketUpgrades,
    private readonly protocol: ThreadProtocolService,
    private readonly tickets: StreamTickets,
  ) {}

  @Get(':thread_id/stream/events')
  async socket(
    @Tenant() tenantId: string,
    @Param('thread_id') id: string,
    @Query('since') since: unknown,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const threadId = known(id);
    await this.protocol.authorizeStream(tenantId, threadId); // 404 for a thread the caller may not read
    const from = sinceOf(since);
    // the request's context (its principal, a custom-auth user) for every frame the socket gets later
    const asCaller = AsyncResource.bind(<T>(fn: () => T): T => fn());
    const mayWrite = currentPrincipal()?.permissions.includes('write') ?? false;
    const scope = { tenantId, threadId, since: from, asCaller, mayWrite };
    const opened = this.sockets.accept(req, (ws) => new ProtocolSocket(ws, this.protocol, scope).open());
    if (!opened) throw new UpgradeRequiredException();
    // nothing reaches the socket (it is the WebSocket's now); a `http` app waiting on this answer is released
    res.status(204).end();
  }

  @Post(':thread_id/stream/ticket')
  @HttpCode(200)
  async ticket(@Tenant() tenantId: string, @Param('thread_id') id: string): Promise<{ ticket: string; expires_at: string }> {
    const threadId = known(id);
    await this.protocol.authorizeStream(tenantId, threadId);
    return this.tickets.issue(currentPrincipal()!, threadId);
  }
}

/** a thread id as the LangGraph API accepts one; any other is answered like an unknown thread */
function known(id: string): string {
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(id)) throw new ThreadNotFoundException(id);
  return id;
}

function sinceOf(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value)) throw new InvalidSinceException();
  return Number(value);
}
