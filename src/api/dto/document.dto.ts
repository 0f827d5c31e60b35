import { z } from 'zod';

import { ApiProperty, ApiPropertyOptional, OmitType } from '../../platform/openapi-decorators';

/** Body of `POST /v1/documents`; validates the request and is its OpenAPI schema. */
export const CreateDocumentSchema = z.strictObject({
  title: z.string().regex(/\S/, 'title must not be blank').max(300).meta({ example: '휴가 정책' }),
  content: z.string().regex(/\S/, 'content must not be empty').meta({ description: 'text or markdown' }),
  source: z.string().max(500).meta({ example: 'hr-handbook.md' }).optional(),
});
export type CreateDocumentDto = z.output<typeof CreateDocumentSchema>;

export class DocumentDto {
  @ApiProperty({ format: 'uuid' })
  document_id: string;

  @ApiProperty()
  title: string;

  @ApiProperty({ nullable: true, type: String })
  source: string | null;

  @ApiProperty({ description: 'how many chunks it was indexed as' })
  chunks: number;

  @ApiPropertyOptional({ format: 'date-time', description: 'in lists' })
  created_at?: string;
}

export class DocumentListDto {
  @ApiProperty({ type: [DocumentDto] })
  documents: DocumentDto[];
}

export class DocumentChunkDto {
  @ApiProperty()
  index: number;

  @ApiProperty({ nullable: true, type: String })
  heading: string | null;

  @ApiProperty()
  content: string;
}

/** `GET /v1/documents/{id}`: the document with the chunks it was indexed as. */
export class DocumentDetailDto extends OmitType(DocumentDto, ['chunks', 'created_at'] as const) {
  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: [DocumentChunkDto] })
  chunks: DocumentChunkDto[];
}
