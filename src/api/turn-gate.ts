import { Injectable } from '@nestjs/common';

import { ContractsService } from '../knowledge/contracts/contracts.service';
import type { TurnRequest } from '../orchestrator/run-admission.service';
import type { ChatRequestDto } from './dto/chat-request.dto';

/** A validated chat body becomes a turn of the request's tenant; a `contract_id` the tenant does not have is 404. */
@Injectable()
export class TurnGate {
  constructor(private readonly contracts: ContractsService) {}

  async turn(body: ChatRequestDto, tenantId: string): Promise<TurnRequest> {
    if (body.contract_id) await this.contracts.assertExists(body.contract_id, tenantId);
    return { ...body, tenant_id: tenantId };
  }
}
