import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { AgentOrchestrator } from '../../orchestrator/agent-orchestrator.service';
import type { ChatResult } from '../../orchestrator/chat-result';
import { ChatRequestDto } from '../dto/chat-request.dto';

@Controller('v1/chat')
export class ChatController {
  constructor(private readonly orchestrator: AgentOrchestrator) {}

  /** One turn, answered in the request. */
  @Post()
  @HttpCode(200)
  chat(@Body() body: ChatRequestDto): Promise<ChatResult> {
    return this.orchestrator.chat(body);
  }
}
