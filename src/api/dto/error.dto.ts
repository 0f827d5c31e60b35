import { ApiProperty, ApiPropertyOptional } from '../../platform/openapi-decorators';

class ErrorDetailDto {
  @ApiProperty({ example: 'SESSION_NOT_FOUND' })
  code: string;

  @ApiProperty({ example: 'session s-1 does not exist' })
  message: string;

  @ApiPropertyOptional({ description: 'e.g. the failed validation constraints', type: 'object', additionalProperties: true })
  details?: unknown;
}

/** Every 4xx/5xx answer of /v1 (api/filters/all-exceptions.filter.ts). */
export class ErrorBodyDto {
  @ApiProperty({ type: ErrorDetailDto })
  error: ErrorDetailDto;
}
