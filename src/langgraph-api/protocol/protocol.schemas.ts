import { z } from 'zod';

/** `POST /threads/{id}/commands`: one protocol command (its params are read by the command itself). */
export const ProtocolCommandBody = z.object({
  id: z.number().int().nonnegative(),
  method: z.string().min(1).max(100),
  params: z.record(z.string(), z.unknown()).optional(),
});

/** `POST /threads/{id}/stream/events`: which events, from where (unknown fields refused, as the reference). */
export const EventsFilterBody = z
  .object({
    channels: z.array(z.string().max(200)).min(1).max(50),
    namespaces: z
      .array(z.array(z.string().max(500)).max(50))
      .max(50)
      .optional(),
    depth: z.number().int().nonnegative().optional(),
    since: z.number().int().nonnegative().optional(),
  })
  .strict();
