import { DomainException } from '../core/errors';

/**
 * Errors of the LangGraph Server API. Those LangGraph Server answers as text carry its text (`platformText`):
 * the filter sends it as the body, our code in `X-Error-Code`; the others are JSON with `detail` beside `error`.
 */
export class AssistantNotFoundException extends DomainException {
  constructor(id: string) {
    super('ASSISTANT_NOT_FOUND', `Assistant "${id.slice(0, 128)}" not found`, 404, undefined, 'Assistant not found');
  }
}

/** A run's `assistant_id` that is neither an assistant nor a graph: LangGraph Server's words. */
export class NoAssistantForRunException extends DomainException {
  constructor(id: string) {
    const text = `No assistant found for "${id.slice(0, 128)}". Make sure the assistant ID is for a valid assistant or a valid graph ID.`;
    super('ASSISTANT_NOT_FOUND', text, 404, undefined, text);
  }
}

export class AssistantVersionNotFoundException extends DomainException {
  constructor(id: string, version: number) {
    super('ASSISTANT_VERSION_NOT_FOUND', `Assistant "${id.slice(0, 128)}" has no version ${version}`, 404);
  }
}

export class GraphNotFoundException extends DomainException {
  constructor(graphId: string, valid: string[]) {
    const text = `Graph "${graphId.slice(0, 128)}" not found`;
    super('GRAPH_NOT_FOUND', `${text}; graphs: ${valid.join(', ')}`, 404, { valid_graphs: valid }, text);
  }
}

export class AssistantExistsException extends DomainException {
  constructor(id: string) {
    super('ASSISTANT_EXISTS', `Assistant "${id.slice(0, 128)}" already exists`, 409, undefined, 'Assistant already exists');
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
    const text = `Thread with ID ${id.slice(0, 128)} not found`;
    super('THREAD_NOT_FOUND', text, 404, undefined, text);
  }
}

/** `POST /threads/{id}/copy` of a thread that is absent or not the caller's: LangGraph Server answers 409 (its copy's words). */
export class CopySourceNotFoundException extends DomainException {
  constructor(id: string) {
    super('THREAD_NOT_FOUND', `Thread with ID ${id.slice(0, 128)} not found`, 409, undefined, 'Thread not found');
  }
}

export class ThreadExistsException extends DomainException {
  constructor(id: string) {
    super('THREAD_EXISTS', `Thread ${id.slice(0, 128)} already exists`, 409, undefined, 'Thread already exists');
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
    const text = `Thread ${id.slice(0, 128)} has no graph ID`;
    super('THREAD_WITHOUT_GRAPH', text, 400, undefined, text);
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

/** A request over a configured limit: 422 (413 for a size), naming the setting that sets the limit. */
export class LimitExceededException extends DomainException {
  constructor(code: string, problem: string, setting: string, limit: number, status = 422) {
    super(code, `${problem}; the limit is ${limit} (${setting})`, status, { setting, limit });
  }
}

/** `command.goto` to a node the run's graph does not have. */
export class UnknownNodeException extends DomainException {
  constructor(node: string, graphId: string, nodes: string[]) {
    super('UNKNOWN_NODE', `command.goto: graph "${graphId}" has no node "${node.slice(0, 128)}"; its nodes: ${nodes.join(', ')}`, 422, {
      node: node.slice(0, 128),
      nodes,
    });
  }
}

/** `input: null` (continue from the checkpoint) on a thread that has no checkpoint to continue from. */
export class EmptyInputException extends DomainException {
  constructor(threadId: string | null) {
    super(
      'EMPTY_INPUT',
      `input: null continues a thread from its checkpoint, and ${threadId ? `thread ${threadId.slice(0, 128)}` : 'a new thread'} has none; send an input or a command`,
      422,
    );
  }
}
