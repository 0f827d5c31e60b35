import { z } from 'zod';

import { ApiProperty } from '../../platform/openapi-decorators';

/** Query of `GET` and `DELETE /v1/memories`: whose memories (an operator names a user; a user reaches its own). */
export const MemoriesQuerySchema = z.strictObject({
  user_id: z
    .string()
    .regex(/\S/, 'user_id must not be blank')
    .max(256)
    .meta({ description: "the user whose memories (an operator's only; a user's own by default)", example: 'alice' })
    .optional(),
});
export type MemoriesQueryDto = z.output<typeof MemoriesQuerySchema>;

/** One fact the assistant remembers about a user. */
export class MemoryDto {
  @ApiProperty({ description: 'stable per fact: a restated fact keeps its key' })
  key: string;

  @ApiProperty({ example: "I'm allergic to peanuts" })
  text: string;

  @ApiProperty({ enum: ['allergy', 'birthday', 'name', 'diet', 'home', 'job', 'family', 'preference', 'note'] })
  kind: string;

  @ApiProperty({ example: 'en' })
  lang: string;

  @ApiProperty({ nullable: true, type: String, description: 'the session it was stated in' })
  source_session: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

/** `GET /v1/memories`: the user's facts, newest first. */
export class MemoryListDto {
  @ApiProperty()
  user_id: string;

  @ApiProperty({ type: [MemoryDto] })
  memories: MemoryDto[];
}
