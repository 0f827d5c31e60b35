import { A2AError, RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { Logger } from '@nestjs/common';

import { DomainException } from '../../core/errors';

/** An assistant the caller may not see, or none at all: 404 JSON on the card's routes (never LangGraph Server's text). */
export class AgentNotFoundException extends DomainException {
  constructor(id: string) {
    super('ASSISTANT_NOT_FOUND', `Assistant "${id.slice(0, 128)}" not found`, 404);
  }
}

/** `/.well-known/agent-card.json` without `?assistant_id=`: the card of which assistant is the question. */
export class AssistantIdRequiredException extends DomainException {
  constructor() {
    super('VALIDATION_FAILED', 'assistant_id is required: /.well-known/agent-card.json?assistant_id=<assistant id or graph id>', 400);
  }
}

const logger = new Logger('A2A');
/** one answer for an unknown task or context and for another user's or tenant's: nothing tells them apart */
const NOT_FOUND = 'task or context not found';

/**
 * The A2A error for what the services threw, which the SDK's transport renders as its JSON-RPC error: a run or a
 * thread the caller may not see (404, whoever owns it) is task-not-found — as unknown ones are, nothing revealed —,
 * a refused request is invalid-params, a busy thread or a refused action unsupported-operation. Anything else is
 * logged and answered as an internal error that names no cause.
 */
export function a2aErrorOf(e: unknown): Error {
  if (e instanceof A2AError) return e;
  if (e instanceof DomainException) {
    if (e.status === 404) return new TaskNotFoundError(NOT_FOUND);
    if (e.status === 400 || e.status === 422) return new RequestMalformedError(e.message);
    if (e.status < 500) return new UnsupportedOperationError(e.message);
  }
  logger.error({ msg: 'A2A request failed', err: (e as Error)?.message });
  return new Error('internal error');
}
