import { z } from 'zod';

/** `GET /v1/sessions?limit=&agent=` (query strings: `limit` is read as a number). */
export const SessionListQuerySchema = z.strictObject({
  limit: z.coerce
    .number({ error: (issue) => (issue.code === 'invalid_type' ? 'limit must be an integer number' : undefined) })
    .int()
    .min(1)
    .max(100)
    .meta({ description: 'most recently updated first; at most 100', default: 20 })
    .optional(),
  agent: z.string().meta({ description: 'only sessions of this agent', example: 'react' }).optional(),
});
export type SessionListQueryDto = z.output<typeof SessionListQuerySchema>;
