import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { z } from 'zod';

import { Tenant } from '../../auth/tenant.guard';
import { ZodPipe } from '../zod-body.pipe';
import { TruncateService } from './truncate.service';

const TruncateBody = z.object({
  runs: z.boolean().optional(),
  threads: z.boolean().optional(),
  assistants: z.boolean().optional(),
  store: z.boolean().optional(),
  checkpoint: z.boolean().optional(),
  checkpointer: z.boolean().optional(),
});

/** `POST /internal/truncate`, routed only with LANGGRAPH_TRUNCATE_ENABLED (see LangGraphApiModule). */
@Controller('internal')
export class TruncateController {
  constructor(private readonly truncation: TruncateService) {}

  @Post('truncate')
  @HttpCode(200)
  async truncate(@Tenant() tenantId: string, @Body(new ZodPipe(TruncateBody)) body: z.infer<typeof TruncateBody>) {
    await this.truncation.truncate(tenantId, body);
    return { ok: true };
  }
}
