import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';

import { ApiProperty, ApiPropertyOptional, OmitType } from '../../platform/openapi-decorators';

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
