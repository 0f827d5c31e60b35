import { Controller, HttpCode, Param, Post } from '@nestjs/common';

import { Tenant } from '../../auth/tenant.guard';
import { RunNotFoundException } from '../../core/errors';
import type { JobView } from '../../orchestrator/runs.service';
import { ToolApprovalService } from '../../orchestrator/tool-approval.service';
import { ApiOkResponse } from '../../platform/openapi-decorators';
import { ApiErrors } from '../dto/api-docs';
import { JobDto } from '../dto/job.dto';
import { SessionAccess } from '../session-access';
import { isUuid } from './ids';

/**
 * Human-in-the-loop for TOOL_APPROVAL: a run paused before a tool call (status `interrupted`, the call in
 * `pending_approval` on GET /v1/jobs/{id}) resumes when an operator approves or rejects it. 409 when the run
 * is not waiting for a decision.
 */
@ApiErrors()
@Controller('v1/jobs')
export class ApprovalsController {
  constructor(
    private readonly approvals: ToolApprovalService,
    private readonly access: SessionAccess,
  ) {}

  @Post(':id/approve')
  @HttpCode(200)
  @ApiOkResponse({ type: JobDto })
  approve(@Param('id') id: string, @Tenant() tenantId: string): Promise<JobView> {
    return this.decide(id, true, tenantId);
  }

  @Post(':id/reject')
  @HttpCode(200)
  @ApiOkResponse({ type: JobDto })
  reject(@Param('id') id: string, @Tenant() tenantId: string): Promise<JobView> {
    return this.decide(id, false, tenantId);
  }

  /** another user's job (one the caller may not see) is 404, as another tenant's */
  private async decide(id: string, approved: boolean, tenantId: string): Promise<JobView> {
    if (!isUuid(id)) throw new RunNotFoundException(id);
    await this.access.job(tenantId, id, 'update');
    return this.approvals.decide(id, approved, tenantId);
  }
}
