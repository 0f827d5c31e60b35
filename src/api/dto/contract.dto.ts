import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

import { ApiProperty, ApiPropertyOptional, OmitType } from '../../platform/openapi-decorators';

export class CreateContractDto {
  @ApiProperty({ example: '소프트웨어 유지보수 용역계약서' })
  @IsString()
  @Matches(/\S/, { message: 'title must not be blank' })
  @MaxLength(300)
  title: string;

  @ApiPropertyOptional({
    description:
      'the contract as text or markdown, Korean or English, with articles like "제1조 (목적)", "Article 1 (Purpose)", "Section 1. Definitions" or "1. Definitions" (or upload it as multipart `file`)',
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

export class ContractArticleDto {
  @ApiProperty({ example: '제10조', description: "the document's own numbering: '제10조', '제3조의2', 'Article 10', 'Section 10'" })
  number: string;

  @ApiProperty({ example: '계약의 해지' })
  title: string;

  @ApiProperty({ type: [String], description: 'numbered clauses (항), markers kept' })
  clauses: string[];
}

export class ExhibitDto {
  @ApiProperty({ example: '별지 1', description: "'별지 1', 'Schedule 1', 'Exhibit A', 'Annex II', 'Appendix 1'" })
  number: string;

  @ApiProperty()
  title: string;

  @ApiProperty()
  content: string;
}

export class ContractDto {
  @ApiProperty({ format: 'uuid' })
  contract_id: string;

  @ApiProperty()
  title: string;

  @ApiProperty({ enum: ['user', 'standard'] })
  kind: 'user' | 'standard';

  @ApiProperty({ type: [ContractArticleDto] })
  articles: ContractArticleDto[];

  @ApiProperty({ type: [ExhibitDto] })
  exhibits: ExhibitDto[];
}

export class ContractSummaryDto extends OmitType(ContractDto, ['articles', 'exhibits'] as const) {
  @ApiProperty({ description: 'how many articles it has' })
  articles: number;
}

export class ContractListDto {
  @ApiProperty({ type: [ContractSummaryDto] })
  contracts: ContractSummaryDto[];
}

/** `GET /v1/contracts?kind=`: only contracts of that kind; any other value is 400. */
export class ContractListQueryDto {
  @ApiPropertyOptional({ enum: ['user', 'standard'] })
  @IsOptional()
  @IsIn(['user', 'standard'])
  kind?: 'user' | 'standard';
}
