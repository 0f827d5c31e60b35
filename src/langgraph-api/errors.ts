import { DomainException } from '../core/errors';

/** Errors of the LangGraph Server API; the filter adds the `detail` field the SDK shows beside our `error`. */
export class AssistantNotFoundException extends DomainException {
  constructor(id: string) {
    super('ASSISTANT_NOT_FOUND', `Assistant "${id.slice(0, 128)}" not found`, 404);
  }
}

export class AssistantVersionNotFoundException extends DomainException {
  constructor(id: string, version: number) {
    super('ASSISTANT_VERSION_NOT_FOUND', `Assistant "${id.slice(0, 128)}" has no version ${version}`, 404);
  }
}

export class GraphNotFoundException extends DomainException {
  constructor(graphId: string, valid: string[]) {
    super('GRAPH_NOT_FOUND', `Graph "${graphId.slice(0, 128)}" not found; graphs: ${valid.join(', ')}`, 404, { valid_graphs: valid });
  }
}

export class AssistantExistsException extends DomainException {
  constructor(id: string) {
    super('ASSISTANT_EXISTS', `Assistant "${id.slice(0, 128)}" already exists`, 409);
  }
}

/** The built-in agents are assistants of the service itself: they are not changed or deleted through the API. */
export class SystemAssistantReadOnlyException extends DomainException {
  constructor(id: string) {
    super(
      'SYSTEM_ASSISTANT_READ_ONLY',
      `Assistant "${id}" is a built-in graph; create an assistant of graph "${id}" to change its config`,
      409,
    );
  }
}

export class ThreadNotFoundException extends DomainException {
  constructor(id: string) {
    super('THREAD_NOT_FOUND', `Thread with ID ${id.slice(0, 128)} not found`, 404);
  }
}

export class ThreadExistsException extends DomainException {
  constructor(id: string) {
    super('THREAD_EXISTS', `Thread ${id.slice(0, 128)} already exists`, 409);
  }
}

export class ThreadBusyException extends DomainException {
  constructor(id: string) {
    super('THREAD_BUSY', `Thread ${id.slice(0, 128)} is busy with a run`, 409);
  }
}

/** Updating the state of a thread that has no graph yet (no run, no `graph_id` in its metadata). */
export class ThreadWithoutGraphException extends DomainException {
  constructor(id: string) {
    super('THREAD_WITHOUT_GRAPH', `Thread ${id.slice(0, 128)} has no graph ID`, 400);
  }
}

export class CheckpointNotFoundException extends DomainException {
  constructor(id: string) {
    super('CHECKPOINT_NOT_FOUND', `Checkpoint ${id.slice(0, 128)} not found`, 404);
  }
}

export class CronNotFoundException extends DomainException {
  constructor(id: string) {
    super('CRON_NOT_FOUND', `Cron ${id.slice(0, 128)} not found`, 404);
  }
}

/** A body the LangGraph API refuses: 422, as LangGraph Server answers invalid requests. */
export class InvalidRequestException extends DomainException {
  constructor(message: string, issues?: unknown) {
    super('VALIDATION_FAILED', message, 422, issues ? { issues } : undefined);
  }
}
