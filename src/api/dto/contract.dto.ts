import { z } from 'zod';

import { ApiProperty, OmitType } from '../../platform/openapi-decorators';

const KIND = z.enum(['user', 'standard']);

/** Body of `POST /v1/contracts` (JSON, or the fields of a multipart upload); validates it and is its OpenAPI schema. */
export const CreateContractSchema = z.strictObject({
  title: z.string().regex(/\S/, 'title must not be blank').max(300).meta({ example: '소프트웨어 유지보수 용역계약서' }),
  content: z
    .string()
    .regex(/\S/, 'content must not be empty')
    .meta({
      description:
        'the contract as text or markdown, Korean or English, with articles like "제1조 (목적)", "Article 1 (Purpose)", "Section 1. Definitions" or "1. Definitions" (or upload it as multipart `file`)',
    })
    .optional(),
  kind: KIND.meta({ default: 'user' }).optional(),
});
export type CreateContractDto = z.output<typeof CreateContractSchema>;

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
export const ContractListQuerySchema = z.strictObject({ kind: KIND.optional() });
export type ContractListQueryDto = z.output<typeof ContractListQuerySchema>;
