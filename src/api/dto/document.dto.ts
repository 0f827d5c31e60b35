import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';

export class CreateDocumentDto {
  @ApiProperty({ example: '휴가 정책' })
  @IsString()
  @Matches(/\S/, { message: 'title must not be blank' })
  @MaxLength(300)
  title: string;

  @ApiProperty({ description: 'text or markdown' })
  @IsString()
  @Matches(/\S/, { message: 'content must not be empty' })
  content: string;

  @ApiPropertyOptional({ example: 'hr-handbook.md' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  source?: string;
}
