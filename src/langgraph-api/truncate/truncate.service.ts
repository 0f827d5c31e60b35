import { Injectable } from '@nestjs/common';

import { ResourceAccess, TENANT_RESOURCE } from '../../auth/resource-access';
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
 * The reference server's test reset, for one tenant: each table emptied by the module that owns it (sessions,
 * runs and checkpoints by the run store, in one transaction). System
 * assistants are not stored, so they stay. Checkpoints are those of the tenant's threads (a thread's checkpoints
 * go with it when threads are emptied). It empties what every user of the tenant owns, so it is an operator's
 * action: the policy (auth/resource-access.ts `tenant:truncate`) lets only `admin` (an API key, an admin token) do it.
 */
@Injectable()
export class TruncateService {
  constructor(
    private readonly sessions: SessionStore,
    private readonly assistants: AssistantsRepository,
    private readonly store: StoreService,
    private readonly access: ResourceAccess,
  ) {}

  async truncate(tenantId: string, flags: TruncateFlags): Promise<void> {
    await this.access.authorize(TENANT_RESOURCE, 'truncate', { ...flags });
    const checkpoints = Boolean(flags.checkpoint || flags.checkpointer);
    if (checkpoints || flags.runs || flags.threads) {
      await this.sessions.resetTenant(tenantId, { checkpoints, runs: flags.runs, sessions: flags.threads });
    }
    if (flags.assistants) await this.assistants.deleteAllOfTenant(tenantId);
    if (flags.store) await this.store.clear(tenantId);
  }
}
