import { ApiProperty, ApiPropertyOptional } from '../../platform/openapi-decorators';

export class ToolCallDto {
  @ApiProperty({ example: 'calculator' })
  name: string;

  @ApiProperty({ type: 'object', additionalProperties: true })
  args: Record<string, unknown>;

  @ApiProperty({ enum: ['success', 'error', 'blocked', 'rejected'] })
  status: 'success' | 'error' | 'blocked' | 'rejected';

  @ApiPropertyOptional({ description: 'the sub-agent that made the call (multi-agent graphs)' })
  agent?: string;
}

/** Agents add their own fields (score, snippet …). */
export class SourceDto {
  @ApiProperty({ example: 'document' })
  kind: string;

  @ApiProperty({ description: 'what the source points at: a document id, an article number, a URL …' })
  ref: string;

  @ApiPropertyOptional()
  title?: string;
}

export class RunErrorDto {
  @ApiProperty({ example: 'MODEL_UNAVAILABLE' })
  code: string;

  @ApiProperty()
  message: string;
}

/** The answer to a turn: `POST /v1/chat`, the `result` event of the streams, `GET /v1/sessions/{id}/result`. */
export class ChatResultDto {
  @ApiProperty({ example: '(12 + 3) * 4 = 60' })
  response: string;

  @ApiProperty()
  session_id: string;

  @ApiProperty({ format: 'uuid' })
  run_id: string;

  @ApiProperty({ example: 'react' })
  agent: string;

  @ApiProperty({ type: [String] })
  tools_used: string[];

  @ApiProperty({ type: [ToolCallDto] })
  tool_calls: ToolCallDto[];

  @ApiProperty({ type: [SourceDto] })
  sources: SourceDto[];

  @ApiProperty()
  execution_time_ms: number;

  @ApiProperty()
  llm_calls: number;

  @ApiProperty({ type: RunErrorDto, nullable: true, description: 'set when the turn failed or was cancelled' })
  error: RunErrorDto | null;

  @ApiProperty({ type: 'object', additionalProperties: true })
  metadata: Record<string, unknown>;
}
