import { z } from 'zod';

import { SESSION_ID_PATTERN } from '../../auth/tenant';

/**
 * Body of `POST /v1/chat` and `POST /v1/jobs`. Size limits: MAX_MESSAGE_CHARS (413) and MAX_BODY_BYTES.
 * Validates the request (src/api/validation) and is its OpenAPI schema (src/api/openapi.ts).
 */
export const ChatRequestSchema = z.strictObject({
  message: z
    .string()
    .regex(/\S/, 'message must not be empty or blank')
    .meta({ description: 'the user message (at most MAX_MESSAGE_CHARS characters)', example: '(12 + 3) * 4' }),
  session_id: z
    .string()
    .regex(SESSION_ID_PATTERN, 'session_id must be 1–128 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-"')
    .meta({
      description:
        'continue this session (an id returned by an earlier turn, or your own: 1–128 chars of [A-Za-z0-9._:-], which starts a session the first time); omitted → a new session with a server-issued UUID',
      example: 'user-session-123',
    })
    .optional(),
  agent: z
    .string()
    .min(1)
    .max(64)
    .meta({ description: "agent name (GET /v1/agents); default DEFAULT_AGENT or the session's agent", example: 'react' })
    .optional(),
  contract_id: z.string().max(128).meta({ description: 'contract the question is about (contract-qa)' }).optional(),
  allow_tools: z
    .array(z.string().max(64))
    .max(32)
    .meta({
      description:
        'high-risk tools (GET /v1/tools, `risk: "high"`) this turn may run after retrieved or tool-produced text entered it; without this (or TOOL_CONSENT) such calls are blocked, whatever the message says. Network tools still refuse arguments carrying words of that text which the message lacks',
      example: ['python_repl'],
    })
    .optional(),
  metadata: z.record(z.string(), z.unknown()).meta({ description: 'free-form metadata stored with the run' }).optional(),
});
export type ChatRequestDto = z.output<typeof ChatRequestSchema>;
