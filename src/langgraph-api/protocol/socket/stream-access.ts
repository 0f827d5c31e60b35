import { Injectable } from '@nestjs/common';

import { ThreadNotFoundException } from '../../errors';
import { ThreadsRepository } from '../../threads/threads.repository';
import { ThreadsService } from '../../threads/threads.service';

/** a thread id as the LangGraph API accepts one (threads.controller.ts) */
const THREAD_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Whether the caller may open a stream on a thread (`threads:read`, through the one policy): a thread it may
 * read, or one that does not exist yet in its tenant (the protocol's `run.start` creates it, so a client opens
 * its stream first). A thread of the tenant it may not read is answered as a missing one (404), never
 * described; another tenant's thread is simply not in the caller's tenant.
 */
@Injectable()
export class StreamAccess {
  constructor(
    private readonly threads: ThreadsService,
    private readonly repo: ThreadsRepository,
  ) {}

  async readable(tenantId: string, threadId: string): Promise<string> {
    if (!THREAD_ID.test(threadId)) throw new ThreadNotFoundException(threadId);
    const filters = await this.threads.authorize('read', { thread_id: threadId });
    if (await this.repo.get(tenantId, threadId, filters)) return threadId;
    if (await this.repo.get(tenantId, threadId)) throw new ThreadNotFoundException(threadId);
    return threadId;
  }
}
