import { type PipeTransform } from '@nestjs/common';
import type { z } from 'zod';

import { InvalidRequestException } from './errors';

/**
 * Validates a LangGraph API body (or query) with its zod schema: the SDK sends many optional fields, each
 * body's schema lists them all. Unknown fields are dropped, not refused (LangGraph Server ignores them too).
 */
export class ZodPipe<T extends z.ZodType> implements PipeTransform<unknown, z.infer<T>> {
  constructor(private readonly schema: T) {}

  transform(value: unknown): z.infer<T> {
    const parsed = this.schema.safeParse(value ?? {});
    if (parsed.success) return parsed.data;
    const issues = parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
    throw new InvalidRequestException(issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; '), issues);
  }
}
