import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';

import { ApiPropertyOptional } from '../../platform/openapi-decorators';

export class SessionListQueryDto {
  @ApiPropertyOptional({ description: 'most recently updated first; at most 100', default: 20, minimum: 1, maximum: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'only sessions of this agent', example: 'react' })
  @IsOptional()
  @IsString()
  agent?: string;
}
