import { Controller, Delete, Get, HttpCode, Query } from '@nestjs/common';

import { Tenant } from '../../auth/tenant.guard';
import { ApiNoContentResponse, ApiOkResponse } from '../../platform/openapi-decorators';
import { ApiErrors, ApiQueryParams } from '../dto/api-docs';
import { type MemoriesQueryDto, MemoriesQuerySchema, MemoryListDto } from '../dto/memory.dto';
import { MemoriesService } from '../memories.service';
import { query } from '../validation/zod-request.pipe';

/**
 * What the assistant remembers about a user across sessions. A user reads and forgets its own memories; the
 * tenant's operator (an API key, an admin token) names a user with `user_id` (auth/resource-access.ts, `memories`).
 */
@ApiErrors()
@Controller('v1/memories')
export class MemoriesController {
  constructor(private readonly memories: MemoriesService) {}

  /** The user's remembered facts, newest first → `{ user_id, memories: [{ key, text, kind, … }] }`. */
  @Get()
  @ApiQueryParams(MemoriesQuerySchema)
  @ApiOkResponse({ type: MemoryListDto })
  async list(@Query(query(MemoriesQuerySchema)) filter: MemoriesQueryDto, @Tenant() tenantId: string): Promise<MemoryListDto> {
    return this.memories.list(tenantId, filter.user_id);
  }

  /** Forgets everything the assistant remembers about the user, in one call (the right to be forgotten). */
  @Delete()
  @HttpCode(204)
  @ApiQueryParams(MemoriesQuerySchema)
  @ApiNoContentResponse()
  async forget(@Query(query(MemoriesQuerySchema)) filter: MemoriesQueryDto, @Tenant() tenantId: string): Promise<void> {
    await this.memories.forget(tenantId, filter.user_id);
  }
}
