/**
 * Domain errors carry a stable code and the HTTP status they map to; services throw them and the one error
 * mapping (http/error-mapping.ts) answers them, in the body shape of the request's dialect (http/error-rendering.ts).
 */
export class DomainException extends Error {
  /** response headers that go with the answer (e.g. `WWW-Authenticate` of a 401) */
  headers?: Record<string, string>;

  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly details?: Record<string, unknown>,
    /** the body LangGraph Server answers this error with (text/plain), on the LangGraph API's routes */
    readonly platformText?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class SessionNotFoundException extends DomainException {
  constructor(id: string) {
    super('SESSION_NOT_FOUND', `session ${id} does not exist`, 404);
  }
}

export class RunNotFoundException extends DomainException {
  constructor(id: string, what = 'job') {
    // a LangGraph API run: LangGraph Server's text
    super(
      what === 'job' ? 'JOB_NOT_FOUND' : 'RUN_NOT_FOUND',
      `${what} ${id} does not exist`,
      404,
      undefined,
      what === 'run' ? 'Run not found' : undefined,
    );
  }
}

export class NoResultException extends DomainException {
  constructor(sessionId: string) {
    super('NO_RESULT', `session ${sessionId} has no finished run yet`, 404);
  }
}

export class UnknownAgentException extends DomainException {
  constructor(agent: string, valid: string[]) {
    super('UNKNOWN_AGENT', `unknown agent "${agent}"; valid agents: ${valid.join(', ')}`, 400, { valid_agents: valid });
  }
}

export class UnknownToolException extends DomainException {
  constructor(names: string[], valid: string[]) {
    super('UNKNOWN_TOOL', `allow_tools names unknown tools: ${names.join(', ')}; known tools: ${valid.join(', ')}`, 422, {
      valid_tools: valid,
    });
  }
}

export class SessionAgentMismatchException extends DomainException {
  constructor(sessionId: string, sessionAgent: string, asked: string) {
    super('SESSION_AGENT_MISMATCH', `session ${sessionId} belongs to agent "${sessionAgent}", not "${asked}"`, 409);
  }
}

export class MessageTooLargeException extends DomainException {
  constructor(limit: number, got: number) {
    super('MESSAGE_TOO_LARGE', `message has ${got} characters; the limit is ${limit} (MAX_MESSAGE_CHARS)`, 413);
  }
}

export class RunAlreadyFinishedException extends DomainException {
  constructor(id: string, status: string) {
    super('JOB_ALREADY_FINISHED', `job ${id} already ended with status "${status}"`, 409);
  }
}

export class RunNotInterruptedException extends DomainException {
  constructor(id: string, status: string) {
    super('JOB_NOT_INTERRUPTED', `job ${id} is not waiting for a tool approval (status "${status}")`, 409);
  }
}

export class SessionAwaitingApprovalException extends DomainException {
  constructor(sessionId: string, jobId: string) {
    super(
      'SESSION_AWAITING_APPROVAL',
      `session ${sessionId} waits for an operator's decision on job ${jobId}: approve or reject that job first`,
      409,
      { job_id: jobId },
    );
  }
}

export class QueueUnavailableException extends DomainException {
  constructor(reason: string) {
    super('QUEUE_UNAVAILABLE', `the run queue is unreachable: ${reason}`, 503);
  }
}

export class SessionBusyException extends DomainException {
  /** `scheduledRunId`: the session's run that waits for its start time (`after_seconds`) */
  constructor(id: string, scheduledRunId?: string) {
    super(
      'SESSION_BUSY',
      scheduledRunId
        ? `session ${id} has run ${scheduledRunId} scheduled for later (after_seconds); a turn now would wait for it: cancel it or come back after it ran`
        : `session ${id} is still busy with an earlier turn`,
      409,
      scheduledRunId ? { run_id: scheduledRunId } : undefined,
    );
  }
}

/** durability: the same `Idempotency-Key` sent with a different request */
export class IdempotencyKeyReusedException extends DomainException {
  constructor(key: string) {
    super('IDEMPOTENCY_KEY_REUSED', `Idempotency-Key "${key.slice(0, 64)}" was already used for a different request`, 422);
  }
}

export class InvalidIdempotencyKeyException extends DomainException {
  constructor() {
    super('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1–255 visible ASCII characters', 400);
  }
}
