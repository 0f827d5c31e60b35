import { Body, Controller, Headers, HttpCode, Post, Res } from '@nestjs/common';
import type { Response } from 'express';

import { Tenant } from '../../auth/tenant.guard';
import { AgentOrchestrator } from '../../orchestrator/agent-orchestrator.service';
import { idempotencyKey } from '../../runs/idempotency-key';
import type { ChatResult } from '../../runs/records/chat-result';
import { ChatRequestDto } from '../dto/chat-request.dto';
import { SseStream } from '../sse';
import { TurnGate } from '../turn-gate';

@Controller('v1/chat')
export class ChatController {
  constructor(
    private readonly orchestrator: AgentOrchestrator,
    private readonly gate: TurnGate,
  ) {}

  /** One turn, answered in the request. */
  @Post()
  @HttpCode(200)
  async chat(@Body() body: ChatRequestDto, @Tenant() tenantId: string, @Headers('idempotency-key') key?: string): Promise<ChatResult> {
    return this.orchestrator.chat({ ...(await this.gate.turn(body, tenantId)), idempotency_key: idempotencyKey(key) });
  }

  /**
   * The same turn as Server-Sent Events: `run` (ids), `progress` (each node), `token` (model output as it
   * arrives), then `result` (the ChatResult). Validation and acceptance errors are plain JSON errors; once
   * streaming, the run always ends with `result` — it is recorded even if the client goes away.
   */
  @Post('stream')
  async stream(@Body() body: ChatRequestDto, @Res() res: Response, @Tenant() tenantId: string): Promise<void> {
    const run = await this.orchestrator.accept(await this.gate.turn(body, tenantId), 'sync');
    const sse = new SseStream(res);
    sse.send('run', { run_id: run.id, session_id: run.sessionId, agent: run.agent });
    const result = await this.orchestrator.execute(run.id, {
      onProgress: (e) => sse.send('progress', e),
      onToken: (e) => sse.send('token', e),
    });
    sse.send('result', result);
    sse.end();
  }
}
