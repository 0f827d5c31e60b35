import { BadRequestException, type PipeTransform } from '@nestjs/common';
import type { z } from 'zod';

import { issueMessage } from './issue-messages';

/**
 * Validates a REST v1 body or query with its zod schema (src/api/dto): unknown fields, wrong types and
 * oversized values are 400 `VALIDATION_FAILED`, one message per problem (`details` lists them when there
 * are several), in the words REST v1 has always answered with. A missing body is an empty object.
 */
export class ZodRequestPipe<T extends z.ZodType> implements PipeTransform<unknown, z.output<T>> {
  constructor(private readonly schema: T) {}

  transform(value: unknown): z.output<T> {
    const input = value ?? {};
    if (typeof input !== 'object' || Array.isArray(input)) throw new BadRequestException(['the request body must be a JSON object']);
    const parsed = this.schema.safeParse(input);
    if (parsed.success) return parsed.data;
    throw new BadRequestException(parsed.error.issues.flatMap(issueMessage));
  }
}

/** `@Body(body(Schema))`, `@Query(query(Schema))`: the pipe that validates with that schema. */
export const body = <T extends z.ZodType>(schema: T) => new ZodRequestPipe(schema);
export const query = body;
