import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

export class CreateContractDto {
  @ApiProperty({ example: '소프트웨어 유지보수 용역계약서' })
  @IsString()
  @Matches(/\S/, { message: 'title must not be blank' })
  @MaxLength(300)
  title: string;

  @ApiPropertyOptional({
    description: 'the contract as text or markdown, with articles like "제1조 (목적)" (or upload it as multipart `file`)',
  })
  @IsOptional()
  @IsString()
  @Matches(/\S/, { message: 'content must not be empty' })
  content?: string;

  @ApiPropertyOptional({ enum: ['user', 'standard'], default: 'user' })
  @IsOptional()
  @IsIn(['user', 'standard'])
  kind?: 'user' | 'standard';
}
