import { RUN_STATUSES, type RunStatus } from '../../database/entities';
import { ApiProperty, ApiPropertyOptional } from '../../platform/openapi-decorators';
import { ChatResultDto, RunErrorDto } from './chat-result.dto';

/** `POST /v1/jobs` → 202. */
export class JobAcceptedDto {
  @ApiProperty({ format: 'uuid' })
  job_id: string;

  @ApiProperty()
  session_id: string;

  @ApiProperty({ enum: RUN_STATUSES, example: 'queued' })
  status: RunStatus;
}

/** The tool call an interrupted run waits on (TOOL_APPROVAL). */
export class PendingApprovalDto {
  @ApiProperty()
  tool: string;

  @ApiProperty({ type: 'object', additionalProperties: true })
  args: Record<string, unknown>;

  @ApiProperty()
  tool_call_id: string;

  @ApiProperty({ format: 'date-time' })
  requested_at: string;
}

export class JobDto {
  @ApiProperty({ format: 'uuid' })
  job_id: string;

  @ApiProperty()
  session_id: string;

  @ApiProperty()
  agent: string;

  @ApiProperty({ enum: RUN_STATUSES })
  status: RunStatus;

  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: 'the last node reached and the steps so far' })
  progress: Record<string, unknown> | null;

  @ApiPropertyOptional({ type: ChatResultDto, description: 'once the job has ended' })
  result?: ChatResultDto;

  @ApiPropertyOptional({ type: RunErrorDto })
  error?: RunErrorDto;

  @ApiPropertyOptional({ type: PendingApprovalDto, description: 'status `interrupted`: approve or reject it' })
  pending_approval?: PendingApprovalDto;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  started_at: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  finished_at: string | null;
}
