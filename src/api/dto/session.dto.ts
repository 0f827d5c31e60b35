import { RUN_STATUSES, type RunMode, type RunStatus } from '../../database/entities';
import { ApiProperty } from '../../platform/openapi-decorators';

export class SessionMessageDto {
  @ApiProperty({ enum: ['user', 'assistant'] })
  role: string;

  @ApiProperty()
  content: string;

  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  run_id: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

export class SessionRunDto {
  @ApiProperty({ format: 'uuid' })
  run_id: string;

  @ApiProperty({ enum: RUN_STATUSES })
  status: RunStatus;

  @ApiProperty({ enum: ['sync', 'async'], description: '`sync`: POST /v1/chat; `async`: a queued job' })
  mode: RunMode;

  @ApiProperty()
  llm_calls: number;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  finished_at: string | null;
}

/** A session as listed by `GET /v1/sessions`. */
export class SessionSummaryDto {
  @ApiProperty()
  session_id: string;

  @ApiProperty({ nullable: true, type: String, description: 'null for a LangGraph API thread that has not run yet' })
  agent: string | null;

  @ApiProperty({
    nullable: true,
    type: String,
    description: 'the first user message on one line, cut to 60 characters with "…"; null before the first turn',
    example: 'What is nine times nine?',
  })
  title: string | null;

  @ApiProperty({ nullable: true, type: String })
  summary: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

/** Untrusted text entered the session (docs/security/tool-consent.md): kept for its later turns and copies. */
export class SessionTaintDto {
  @ApiProperty({ type: [String], description: 'where the untrusted text came from', example: ['knowledge base', 'tool web_search'] })
  sources: string[];

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'when the session was first tainted' })
  since: string | null;

  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'the run that first tainted it' })
  run_id: string | null;
}

/** `GET /v1/sessions/{id}`: the conversation, its running summary and its runs. */
export class SessionDto extends SessionSummaryDto {
  @ApiProperty({
    type: SessionTaintDto,
    nullable: true,
    description:
      'null while no untrusted text (retrieved passages, tool output) entered the session; otherwise high-risk tools in ' +
      'every later turn need consent (allow_tools, TOOL_CONSENT, an approval). No request clears it.',
  })
  taint: SessionTaintDto | null;

  @ApiProperty({ type: [SessionMessageDto] })
  messages: SessionMessageDto[];

  @ApiProperty({ type: [SessionRunDto] })
  runs: SessionRunDto[];
}

/** `GET /v1/sessions`: the tenant's sessions, most recently updated first. */
export class SessionListDto {
  @ApiProperty({ type: [SessionSummaryDto] })
  sessions: SessionSummaryDto[];
}
