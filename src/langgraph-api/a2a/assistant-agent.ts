import type {
  AgentCard,
  CancelTaskRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { ExtendedAgentCardNotConfiguredError, PushNotificationNotSupportedError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';

import type { AssistantWire } from '../assistants/assistants.repository';
import { a2aErrorOf } from './a2a-errors';
import { A2aTasks } from './a2a-tasks';

/**
 * One assistant as the SDK's transports call an agent (`A2ARequestHandler`), for one request: the SDK parses
 * JSON-RPC (1.0 and 0.3) and renders results and errors; every call goes to A2aTasks as the caller's tenant (the
 * principal is the request's, ambient). What the services refuse becomes the A2A error the SDK maps (a2a-errors.ts).
 * `signal` aborts when the client goes away: it stops following a run, never the run.
 */
export class AssistantAgent implements A2ARequestHandler {
  constructor(
    private readonly tasks: A2aTasks,
    private readonly tenantId: string,
    private readonly assistant: AssistantWire,
    private readonly card: AgentCard,
    private readonly signal: AbortSignal,
  ) {}

  getAgentCard(): Promise<AgentCard> {
    return Promise.resolve(this.card);
  }

  getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    return Promise.reject(new ExtendedAgentCardNotConfiguredError());
  }

  sendMessage(params: SendMessageRequest): Promise<Message | Task> {
    return mapped(async () => {
      const started = await this.tasks.send(this.tenantId, this.assistant, params.message);
      if (params.configuration?.returnImmediately) return this.tasks.task(this.tenantId, this.assistant, started.run.id);
      return this.tasks.settle(this.tenantId, started, this.signal);
    });
  }

  async *sendMessageStream(params: SendMessageRequest): AsyncGenerator<StreamResponse, void, undefined> {
    try {
      const started = await this.tasks.send(this.tenantId, this.assistant, params.message);
      yield* this.tasks.follow(this.tenantId, started, this.signal);
    } catch (e) {
      throw a2aErrorOf(e);
    }
  }

  async *resubscribe(params: SubscribeToTaskRequest): AsyncGenerator<StreamResponse, void, undefined> {
    try {
      yield* this.tasks.follow(this.tenantId, await this.tasks.started(this.tenantId, this.assistant, params.id), this.signal);
    } catch (e) {
      throw a2aErrorOf(e);
    }
  }

  getTask(params: GetTaskRequest): Promise<Task> {
    return mapped(() => this.tasks.task(this.tenantId, this.assistant, params.id, params.historyLength));
  }

  cancelTask(params: CancelTaskRequest): Promise<Task> {
    return mapped(() => this.tasks.cancel(this.tenantId, this.assistant, params.id));
  }

  listTasks(params: ListTasksRequest): Promise<ListTasksResponse> {
    return mapped(() => this.tasks.list(this.tenantId, this.assistant, params));
  }

  createTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    return Promise.reject(new PushNotificationNotSupportedError());
  }

  getTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    return Promise.reject(new PushNotificationNotSupportedError());
  }

  listTaskPushNotificationConfigs(): Promise<ListTaskPushNotificationConfigsResponse> {
    return Promise.reject(new PushNotificationNotSupportedError());
  }

  deleteTaskPushNotificationConfig(): Promise<void> {
    return Promise.reject(new PushNotificationNotSupportedError());
  }
}

async function mapped<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw a2aErrorOf(e);
  }
}
