import { IsNotEmpty, IsObject, IsOptional, IsString, IsUUID, Matches, MaxLength } from 'class-validator';

/** Body of `POST /v1/chat` and `POST /v1/jobs`. Size limits: MAX_MESSAGE_CHARS (413) and MAX_BODY_BYTES. */
export class ChatRequestDto {
  @IsString()
  @Matches(/\S/, { message: 'message must not be empty or blank' })
  message: string;

  @IsOptional()
  @IsUUID('all', { message: 'session_id must be a UUID returned by an earlier turn' })
  session_id?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  agent?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  contract_id?: string;

  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
}

