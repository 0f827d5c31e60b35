import { Controller, HttpCode, Param, Post } from '@nestjs/common';

import { Tenant } from '../../auth/tenant.guard';
import { RunNotFoundException } from '../../core/errors';
import type { JobView } from '../../orchestrator/runs.service';
import { ToolApprovalService } from '../../orchestrator/tool-approval.service';
import { ApiOkResponse } from '../../platform/openapi-decorators';
import { ApiErrors } from '../dto/api-docs';
import { JobDto } from '../dto/job.dto';
import { isUuid } from './ids';

/**
 * Human-in-the-loop for TOOL_APPROVAL: a run paused before a tool call (status `interrupted`, the call in
 * `pending_approval` on GET /v1/jobs/{id}) resumes when an operator approves or rejects it. 409 when the run
 * is not waiting for a decision.
 */
@ApiErrors()
@Controller('v1/jobs')
export class ApprovalsController {
  constructor(private readonly approvals: ToolApprovalService) {}

  @Post(':id/approve')
  @HttpCode(200)
  @ApiOkResponse({ type: JobDto })
  approve(@Param('id') id: string, @Tenant() tenantId: string): Promise<JobView> {
    if (!isUuid(id)) throw new RunNotFoundException(id);
    return this.approvals.decide(id, true, tenantId);
  }

  @Post(':id/reject')
  @HttpCode(200)
  @ApiOkResponse({ type: JobDto })
  reject(@Param('id') id: string, @Tenant() tenantId: string): Promise<JobView> {
    if (!isUuid(id)) throw new RunNotFoundException(id);
    return this.approvals.decide(id, false, tenantId);
  }
}
