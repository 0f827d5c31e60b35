import { Injectable } from '@nestjs/common';

import { AgentRegistry } from '../../agents/agent-registry.service';
import { ResourceAccess, TENANT_RESOURCE } from '../../auth/resource-access';
import { threadIdOf } from '../../auth/tenant';
import { RunStore } from '../../runs/store/run-store';
import { SessionStore } from '../../runs/store/session-store';
import { AssistantsRepository } from '../assistants/assistants.repository';
import { StoreService } from '../store/store.service';

/** What `POST /internal/truncate` empties, as the reference server reads its body (`checkpoint` or `checkpointer`). */
export interface TruncateFlags {
  runs?: boolean;
  threads?: boolean;
  assistants?: boolean;
  store?: boolean;
  checkpoint?: boolean;
  checkpointer?: boolean;
}

/**
 * The reference server's test reset, for one tenant: each table emptied by the module that owns it. System
 * assistants are not stored, so they stay. Checkpoints are those of the tenant's threads (a thread's checkpoints
 * go with it when threads are emptied). It empties what every user of the tenant owns, so it is an operator's
 * action: the policy (auth/resource-access.ts `tenant:truncate`) lets only `admin` (an API key, an admin token) do it.
 */
@Injectable()
export class TruncateService {
  constructor(
    private readonly runs: RunStore,
    private readonly sessions: SessionStore,
    private readonly assistants: AssistantsRepository,
    private readonly store: StoreService,
    private readonly registry: AgentRegistry,
    private readonly access: ResourceAccess,
  ) {}

  async truncate(tenantId: string, flags: TruncateFlags): Promise<void> {
    await this.access.authorize(TENANT_RESOURCE, 'truncate', { ...flags });
    if (flags.checkpoint || flags.checkpointer || flags.threads) await this.deleteCheckpoints(tenantId);
    if (flags.runs) await this.runs.deleteAllOfTenant(tenantId);
    if (flags.threads) await this.sessions.deleteAllOfTenant(tenantId);
    if (flags.assistants) await this.assistants.deleteAllOfTenant(tenantId);
    if (flags.store) await this.store.clear(tenantId);
  }

  private async deleteCheckpoints(tenantId: string): Promise<void> {
    for (const session of await this.sessions.list(tenantId, Number.MAX_SAFE_INTEGER)) {
      await this.registry.deleteThread(threadIdOf(tenantId, session.id));
    }
  }
}
