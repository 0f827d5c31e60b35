import type { ListTasksRequest, ListTasksResponse, Message, StreamResponse, Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import { RequestMalformedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { Injectable } from '@nestjs/common';

import type { RunEntity } from '../../database/entities';
import type { AssistantWire } from '../assistants/assistants.repository';
import { LangGraphRunsService } from '../runs/lg-runs.service';
import { RunCreate, RunListQuery } from '../runs/run-schemas';
import { hasEnded } from '../runs/run-wire';
import { ThreadSearch } from '../schemas';
import { ThreadsService } from '../threads/threads.service';
import {
  aiTextOf,
  answerArtifact,
  approvalOf,
  contentOf,
  interruptValuesOf,
  isFinal,
  type MessageContent,
  resumeValueOf,
  runInputOf,
  statusTimeOf,
  taskOf,
  taskStateOf,
  type WaitingFor,
  waitsForApproval,
} from './task-view';

/** the run's stream modes: the answer's tokens */
const STREAM_MODES = ['messages-tuple'] as const;
const PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;
/** the contexts (threads) a listing without contextId looks through, most recently updated first */
const MAX_CONTEXTS = 100;
/** the runs of each context a listing looks through, newest first */
const MAX_TASKS_PER_CONTEXT = 1000;
/** the LangGraph API's run statuses a task state comes from (`interrupted`: canceled or input-required, told apart by the row) */
const RUN_STATUSES_OF: Partial<Record<TaskState, string[]>> = {
  [TaskState.TASK_STATE_SUBMITTED]: ['pending'],
  [TaskState.TASK_STATE_WORKING]: ['running'],
  [TaskState.TASK_STATE_COMPLETED]: ['success'],
  [TaskState.TASK_STATE_FAILED]: ['error', 'timeout'],
  [TaskState.TASK_STATE_CANCELED]: ['interrupted'],
  [TaskState.TASK_STATE_INPUT_REQUIRED]: ['interrupted'],
};

interface Started {
  run: RunEntity;
  threadId: string;
}

/**
 * A2A tasks over the LangGraph API's runs, for one assistant: a context is a thread, a task is a run of it
 * (`taskId` = run id). Runs are started, resumed, cancelled and read through LangGraphRunsService and the thread
 * service exactly as the LangGraph routes do (tenants, users, custom auth, consent, budgets, multitask), so every
 * refusal comes from them; this class only maps. State is the run row and the thread: any process answers.
 */
@Injectable()
export class A2aTasks {
  constructor(
    private readonly runs: LangGraphRunsService,
    private readonly threads: ThreadsService,
  ) {}

  /**
   * A message: a new run on its context (a new thread without `contextId`; an unknown one is created with that
   * id), or the answer to the input-required task it names — an `interrupt()` resumed with it, a tool call
   * decided by its `{ approve }` data part.
   */
  async send(tenantId: string, assistant: AssistantWire, msg: Message | undefined): Promise<Started> {
    const content = contentOf(msg);
    const taskId = msg?.taskId || undefined;
    let threadId = msg?.contextId || null;
    if (taskId) {
      const run = await this.ownRun(tenantId, assistant, taskId);
      if (threadId && threadId !== run.sessionId) throw new RequestMalformedError(`task ${taskId} is not in context ${threadId}`);
      if (isFinal(taskStateOf(run))) {
        throw new UnsupportedOperationError(`task ${taskId} has ended; send the next message with its contextId only`);
      }
      if (waitsForApproval(run)) return this.decide(tenantId, run, content);
      threadId = run.sessionId;
    }
    const pending = threadId ? await this.pendingInterrupts(tenantId, threadId) : 0;
    if (taskId && pending === 0) throw new UnsupportedOperationError(`task ${taskId} is not waiting for input`);
    const body = RunCreate.parse({
      assistant_id: assistant.assistant_id,
      ...(pending > 0 ? { command: { resume: resumeValueOf(content) } } : { input: runInputOf(content) }),
      stream_mode: [...STREAM_MODES],
      multitask_strategy: 'enqueue',
      on_completion: 'keep',
      ...(threadId ? { if_not_exists: 'create' } : {}),
    });
    const { run, threadId: id } = await this.runs.create(tenantId, threadId, body, { waited: true });
    return { run, threadId: id };
  }

  /** A task to follow again (`SubscribeToTask`): its run, when the caller may read it. */
  async started(tenantId: string, assistant: AssistantWire, taskId: string): Promise<Started> {
    const run = await this.ownRun(tenantId, assistant, taskId);
    return { run, threadId: run.sessionId };
  }

  /** A tool call's decision, from a data part `{ "approve": true | false }`; the task goes on (same run). */
  private async decide(tenantId: string, run: RunEntity, content: MessageContent): Promise<Started> {
    const approved = approvalOf(content);
    if (approved === undefined)
      throw new RequestMalformedError('this task waits for a decision: reply with a data part {"approve": true} or {"approve": false}');
    await this.runs.decideApproval(tenantId, run.sessionId, run.id, approved);
    return { run: await this.runs.byId(tenantId, run.id), threadId: run.sessionId };
  }

  /** The task as it is now (from the run row and its thread). */
  async task(tenantId: string, assistant: AssistantWire, taskId: string, historyLength?: number): Promise<Task> {
    return this.taskOfRun(tenantId, await this.ownRun(tenantId, assistant, taskId), historyLength);
  }

  /** Cancels the task's run; an ended one is not cancelable. */
  async cancel(tenantId: string, assistant: AssistantWire, taskId: string): Promise<Task> {
    const run = await this.ownRun(tenantId, assistant, taskId);
    if (hasEnded(run)) {
      throw new TaskNotCancelableError(`task ${taskId} has ended`);
    }
    await this.runs.stop(tenantId, run.sessionId, run.id, 'interrupt', true);
    return this.task(tenantId, assistant, taskId);
  }

  /** The caller's tasks of this assistant, newest first: of one context, or of the contexts it may see. */
  async list(tenantId: string, assistant: AssistantWire, q: ListTasksRequest): Promise<ListTasksResponse> {
    const size = Math.min(Math.max(q.pageSize ?? PAGE_SIZE, 1), MAX_PAGE_SIZE);
    const offset = q.pageToken ? Number(q.pageToken) : 0;
    if (!Number.isInteger(offset) || offset < 0) throw new RequestMalformedError('pageToken is not one this server gave');
    const contexts = q.contextId
      ? [q.contextId]
      : (
          await this.threads.search(
            tenantId,
            ThreadSearch.parse({
              metadata: { assistant_id: assistant.assistant_id },
              limit: MAX_CONTEXTS,
              sort_by: 'updated_at',
              sort_order: 'desc',
            }),
          )
        ).map((t) => t.thread_id as string);
    const listed = (
      await Promise.all(contexts.map((c) => this.runs.list(tenantId, c, RunListQuery.parse({ limit: MAX_TASKS_PER_CONTEXT }))))
    ).flat() as Array<{ run_id: string; assistant_id: string; created_at: string; status: string }>;
    const candidates = listed
      .filter((r) => r.assistant_id === assistant.assistant_id && (!q.status || (RUN_STATUSES_OF[q.status] ?? []).includes(r.status)))
      .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.run_id.localeCompare(a.run_id));
    const byId = (ids: Array<{ run_id: string }>) => Promise.all(ids.map((r) => this.runs.byId(tenantId, r.run_id)));
    // `interrupted` runs are canceled or input-required tasks, and a status time is the row's: those filters read
    // the rows; the others only the page's
    const after = q.statusTimestampAfter ? Date.parse(q.statusTimestampAfter) : undefined;
    if (Number.isNaN(after)) throw new RequestMalformedError('statusTimestampAfter is not a timestamp');
    const exact = q.status === TaskState.TASK_STATE_CANCELED || q.status === TaskState.TASK_STATE_INPUT_REQUIRED || after !== undefined;
    const keep = (r: RunEntity) => (!q.status || taskStateOf(r) === q.status) && (after === undefined || statusTimeOf(r).getTime() > after);
    const matching = exact ? (await byId(candidates)).filter(keep) : undefined;
    const total = matching?.length ?? candidates.length;
    const page = matching ? matching.slice(offset, offset + size) : await byId(candidates.slice(offset, offset + size));
    const tasks = await Promise.all(page.map((r) => this.taskOfRun(tenantId, r, q.historyLength)));
    const more = total > offset + size;
    return { tasks, nextPageToken: more ? String(offset + size) : '', pageSize: size, totalSize: total };
  }

  /**
   * Follows a started task: the task first, `working` once its run has started, the answer's tokens as `append`
   * updates of the `answer` artifact, then the final status (completed, failed, canceled, input-required). Ends
   * when the run does, when it pauses for a tool approval, or when `signal` aborts — which never cancels the run.
   */
  async *follow(tenantId: string, started: Started, signal: AbortSignal): AsyncGenerator<StreamResponse> {
    const { run, threadId } = started;
    yield { payload: { $case: 'task', value: taskOf(run) } };
    const events = this.runs.stream(run.id, [...STREAM_MODES], { signal, tenantId, threadId, pauses: true });
    let streamed = '';
    let working = run.status === 'running';
    let paused = false;
    for await (const e of events) {
      if (e.event === 'pause') {
        // a run parks for a tool approval: input-required, unless the pause was already decided (a replayed event)
        paused = waitsForApproval(await this.runs.byId(tenantId, run.id));
        if (paused) break;
        continue;
      }
      if (!working && e.event === 'metadata') {
        working = true;
        yield this.status(run, TaskState.TASK_STATE_WORKING);
      }
      const text = e.event === 'messages' ? aiTextOf(e.data) : undefined;
      if (text) {
        yield this.artifactUpdate(run, text, streamed !== '', false);
        streamed += text;
      }
    }
    if (signal.aborted) return;
    // the run's last event comes before its row is final: wait for its end (a paused run has not ended)
    if (!paused) await this.runs.ended(run.id, signal);
    if (signal.aborted) return;
    const task = await this.taskOfRun(tenantId, await this.runs.byId(tenantId, run.id));
    const answer = task.artifacts[0]?.parts[0]?.content;
    const full = answer?.$case === 'text' ? answer.value : undefined;
    // the streamed tokens were the answer: the artifact is closed; otherwise it is replaced by the answer
    if (full !== undefined) yield this.artifactUpdate(run, full === streamed ? '' : full, full === streamed, true);
    yield {
      payload: { $case: 'statusUpdate', value: { taskId: run.id, contextId: run.sessionId, status: task.status, metadata: undefined } },
    };
  }

  /** Drains `follow` (a blocking SendMessage): the task once its run has ended or waits for input. */
  async settle(tenantId: string, started: Started, signal: AbortSignal): Promise<Task> {
    for await (const _ of this.follow(tenantId, started, signal)) void _;
    return this.taskOfRun(tenantId, await this.runs.byId(tenantId, started.run.id));
  }

  private status(run: RunEntity, state: TaskState): StreamResponse {
    return {
      payload: {
        $case: 'statusUpdate',
        value: {
          taskId: run.id,
          contextId: run.sessionId,
          status: { state, message: undefined, timestamp: new Date().toISOString() },
          metadata: undefined,
        },
      },
    };
  }

  private artifactUpdate(run: RunEntity, text: string, append: boolean, lastChunk: boolean): StreamResponse {
    const artifact = answerArtifact(text);
    if (!text) artifact.parts = [];
    return {
      payload: {
        $case: 'artifactUpdate',
        value: { taskId: run.id, contextId: run.sessionId, artifact, append, lastChunk, metadata: undefined },
      },
    };
  }

  /** The run, when the caller may read its thread and it is a task of this assistant; else task-not-found. */
  private async ownRun(tenantId: string, assistant: AssistantWire, taskId: string): Promise<RunEntity> {
    if (!taskId.trim()) throw new RequestMalformedError('a task id is required');
    const run = await this.runs.byId(tenantId, taskId);
    if (run.input.lg?.assistant_id !== assistant.assistant_id) throw new TaskNotFoundError('task or context not found');
    return run;
  }

  private async taskOfRun(tenantId: string, run: RunEntity, historyLength?: number): Promise<Task> {
    if (run.status === 'completed') return taskOf(run, { answer: await this.answerOf(tenantId, run), historyLength });
    return taskOf(run, { waiting: await this.waitingOf(tenantId, run), historyLength });
  }

  /** The answer: the run's result, else the last AI message of its thread. */
  private async answerOf(tenantId: string, run: RunEntity): Promise<string> {
    if (run.result?.response) return run.result.response;
    const thread = await this.threads.get(tenantId, run.sessionId).catch(() => null);
    const messages = ((thread?.values ?? {}) as { messages?: Array<{ type?: string; content?: unknown }> }).messages ?? [];
    const last = [...messages].reverse().find((m) => m.type === 'ai');
    return typeof last?.content === 'string' ? last.content : '';
  }

  private async waitingOf(tenantId: string, run: RunEntity): Promise<WaitingFor | undefined> {
    if (run.status !== 'interrupted') return undefined;
    if (waitsForApproval(run)) return { kind: 'approval', tool: run.pendingApproval!.tool, args: run.pendingApproval!.args };
    const thread = await this.threads.get(tenantId, run.sessionId).catch(() => null);
    const interrupts = Object.values((thread?.interrupts ?? {}) as Record<string, unknown[]>).flat();
    return { kind: 'interrupt', values: interruptValuesOf(interrupts) };
  }

  /** How many interrupts wait on the thread (0 for a thread that does not exist yet or the caller may not read). */
  private async pendingInterrupts(tenantId: string, threadId: string): Promise<number> {
    const state = await this.threads.state(tenantId, threadId).catch(() => null);
    const tasks = (state?.tasks ?? []) as Array<{ interrupts?: unknown[] }>;
    return tasks.reduce((n, t) => n + (t.interrupts?.length ?? 0), 0);
  }
}
