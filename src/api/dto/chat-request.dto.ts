import { ArrayMaxSize, IsArray, IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

import { SESSION_ID_PATTERN } from '../../auth/tenant';
import { ApiProperty, ApiPropertyOptional } from '../../platform/openapi-decorators';

/** Body of `POST /v1/chat` and `POST /v1/jobs`. Size limits: MAX_MESSAGE_CHARS (413) and MAX_BODY_BYTES. */
export class ChatRequestDto {
  @ApiProperty({ description: 'the user message (at most MAX_MESSAGE_CHARS characters)', example: '(12 + 3) * 4' })
  @IsString()
  @Matches(/\S/, { message: 'message must not be empty or blank' })
  message: string;

  @ApiPropertyOptional({
    description:
      'continue this session (an id returned by an earlier turn, or your own: 1–128 chars of [A-Za-z0-9._:-], which starts a session the first time); omitted → a new session with a server-issued UUID',
    example: 'user-session-123',
  })
  @IsOptional()
  @IsString()
  @Matches(SESSION_ID_PATTERN, { message: 'session_id must be 1–128 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-"' })
  session_id?: string;

  @ApiPropertyOptional({ description: "agent name (GET /v1/agents); default DEFAULT_AGENT or the session's agent", example: 'react' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  agent?: string;

  @ApiPropertyOptional({ description: 'contract the question is about (contract-qa)' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  contract_id?: string;

  @ApiPropertyOptional({
    description:
      'high-risk tools (GET /v1/tools, `risk: "high"`) this turn may run after retrieved or tool-produced text entered it; without this (or TOOL_CONSENT) such calls are blocked, whatever the message says. Network tools still refuse arguments carrying words of that text which the message lacks',
    type: [String],
    example: ['python_repl'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(32)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  allow_tools?: string[];

  @ApiPropertyOptional({ description: 'free-form metadata stored with the run', type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
}
