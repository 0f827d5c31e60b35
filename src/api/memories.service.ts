import type { BaseStore } from '@langchain/langgraph';
import { Inject, Injectable } from '@nestjs/common';

import { MEMORIES_RESOURCE, ResourceAccess } from '../auth/resource-access';
import { LANGGRAPH_STORE } from '../database/store/store.module';
import { StoreOwners } from '../database/store/store-owners';
import { TenantStore } from '../database/store/tenant-store';
import { forgetUser, listFacts, type RememberedFact } from '../memory/long-term/fact-store';

/** Most facts one listing returns (a user's memories are few; the rest stays reachable by a later listing). */
const LIST_LIMIT = 500;

/**
 * A user's memories across sessions (the assistant's long-term memory, kept in the tenant's LangGraph store): read
 * and forgotten over REST v1. Whose they are is the policy's answer (`memories:read|delete`).
 */
@Injectable()
export class MemoriesService {
  constructor(
    @Inject(LANGGRAPH_STORE) private readonly store: BaseStore,
    private readonly owners: StoreOwners,
    private readonly access: ResourceAccess,
  ) {}

  /** The user's facts, newest first. */
  async list(tenantId: string, userId: string | undefined): Promise<{ user_id: string; memories: RememberedFact[] }> {
    const user = await this.userOf('read', userId);
    const memories = await listFacts(new TenantStore(this.store, tenantId), user, LIST_LIMIT);
    return { user_id: user, memories: memories.map(({ score: _score, ...fact }) => fact) };
  }

  /** Forgets every fact of the user (the items, and their owner rows); returns how many there were. */
  async forget(tenantId: string, userId: string | undefined): Promise<number> {
    const user = await this.userOf('delete', userId);
    return forgetUser(new TenantStore(this.store, tenantId, { user, owners: this.owners }), user);
  }

  private async userOf(action: 'read' | 'delete', userId: string | undefined): Promise<string> {
    const filters = await this.access.authorize(MEMORIES_RESOURCE, action, userId ? { user_id: userId } : {});
    return String(filters?.owner);
  }
}
