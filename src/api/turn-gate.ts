import { Injectable } from '@nestjs/common';

import { UnknownToolException } from '../core/errors';
import { ContractsService } from '../knowledge/contracts/contracts.service';
import type { TurnRequest } from '../orchestrator/run-admission.service';
import { ToolRegistry } from '../tools/tool-registry.service';
import type { ChatRequestDto } from './dto/chat-request.dto';
import { SessionAccess } from './session-access';

/**
 * A validated chat body becomes a turn of the request's tenant: a `contract_id` the tenant does not have is 404,
 * an `allow_tools` name no tool has is 422 (a typo would otherwise leave the tool blocked without a word), a
 * session the caller may not see (another user's) is 404, and a new session is the caller's (SessionAccess).
 */
@Injectable()
export class TurnGate {
  constructor(
    private readonly contracts: ContractsService,
    private readonly tools: ToolRegistry,
    private readonly access: SessionAccess,
  ) {}

  async turn(body: ChatRequestDto, tenantId: string): Promise<TurnRequest> {
    if (body.allow_tools?.length) {
      const known = this.tools.list().map((t) => t.name);
      const unknown = body.allow_tools.filter((t) => !known.includes(t));
      if (unknown.length) throw new UnknownToolException(unknown, known);
    }
    if (body.contract_id) await this.contracts.assertExists(body.contract_id, tenantId);
    return this.access.turn({ ...body, tenant_id: tenantId });
  }
}
