import { type Artifact, type Message, type Part, Role, type Task, TaskState } from '@a2a-js/sdk';
import { ContentTypeNotSupportedError, RequestMalformedError } from '@a2a-js/sdk/errors';

import { detectLanguage, localize, type Messages } from '../../core/language';
import type { RunEntity } from '../../database/entities';
import { isAwaitingApproval } from '../../runs/store/run-rules';

/**
 * What a task is, read from its run: the run's status as a task state, its answer as the `answer` artifact, what it
 * waits for as the status message. Pure functions: the service reads the run and its thread, these render them.
 */

/** What an input-required task waits for: the graph's `interrupt()` values, or an operator-style decision on a tool call. */
export type WaitingFor = { kind: 'interrupt'; values: unknown[] } | { kind: 'approval'; tool: string; args: Record<string, unknown> };

export const ANSWER_ARTIFACT = 'answer';

/** The parts of a user's message: its text parts joined, its data parts merged (later keys win). */
export interface MessageContent {
  text: string;
  data: Record<string, unknown>;
  hasData: boolean;
}

export function contentOf(message: Message | undefined): MessageContent {
  if (!message || !Array.isArray(message.parts) || message.parts.length === 0) {
    throw new RequestMalformedError('message.parts must hold at least one text or data part');
  }
  const texts: string[] = [];
  const data: Record<string, unknown> = {};
  let hasData = false;
  for (const part of message.parts) {
    const content = part.content;
    if (content?.$case === 'text') texts.push(content.value);
    else if (content?.$case === 'data') {
      const value: unknown = content.value;
      if (!value || typeof value !== 'object' || Array.isArray(value))
        throw new RequestMalformedError('a data part must hold a JSON object');
      Object.assign(data, value);
      hasData = true;
    } else throw new ContentTypeNotSupportedError('only text and data parts are accepted (no files or URLs)');
  }
  return { text: texts.join('\n'), data, hasData };
}

/** A new turn's graph input: the text as the user's message, the data parts merged beside it. */
export function runInputOf(c: MessageContent): Record<string, unknown> {
  return { ...c.data, ...(c.text ? { messages: [{ role: 'user', content: c.text }] } : {}) };
}

/** What resumes an `interrupt()`: the data parts when there are any, else the text. */
export function resumeValueOf(c: MessageContent): unknown {
  return c.hasData ? c.data : c.text;
}

/** A reply to a tool-call approval: a data part `{ "approve": true | false }` (a decision is given by structure, never by words). */
export function approvalOf(c: MessageContent): boolean | undefined {
  const approve = c.data.approve;
  return typeof approve === 'boolean' ? approve : undefined;
}

/** The run waits for a decision on a tool call (TOOL_APPROVAL): paused, not ended. */
export function waitsForApproval(run: RunEntity): boolean {
  return isAwaitingApproval(run) && run.pendingApproval !== null;
}

export function taskStateOf(run: Pick<RunEntity, 'status'>): TaskState {
  switch (run.status) {
    case 'queued':
      return TaskState.TASK_STATE_SUBMITTED;
    case 'running':
      return TaskState.TASK_STATE_WORKING;
    case 'completed':
      return TaskState.TASK_STATE_COMPLETED;
    case 'failed':
      return TaskState.TASK_STATE_FAILED;
    case 'cancelled':
      return TaskState.TASK_STATE_CANCELED;
    case 'interrupted':
      return TaskState.TASK_STATE_INPUT_REQUIRED;
  }
}

const FINAL_STATES = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED]);

export function isFinal(state: TaskState): boolean {
  return FINAL_STATES.has(state);
}

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function dataPart(value: Record<string, unknown>): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

export function message(role: Role, taskId: string, contextId: string, id: string, parts: Part[]): Message {
  return { messageId: id, contextId, taskId, role, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

export function answerArtifact(text: string): Artifact {
  return {
    artifactId: ANSWER_ARTIFACT,
    name: ANSWER_ARTIFACT,
    description: '',
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
  };
}

const APPROVAL_TEXT: Messages<(tool: string) => string> = {
  en: (tool) => `The ${tool} call needs approval. Reply in this task with a data part {"approve": true} or {"approve": false}.`,
  ko: (tool) => `도구 실행(${tool})에 승인이 필요합니다. 이 작업에 데이터 파트 {"approve": true} 또는 {"approve": false}로 답해 주세요.`,
};

const FAILED_TEXT: Messages<string> = { en: 'The run failed.', ko: '실행에 실패했습니다.' };

function interruptText(values: unknown[]): string {
  return values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n');
}

/** The agent's status message: what an input-required task waits for, or why a task failed, in the user's language. */
function statusMessageOf(run: RunEntity, waiting: WaitingFor | undefined): Message | undefined {
  const language = detectLanguage(run.input.message);
  const say = (parts: Part[]) => message(Role.ROLE_AGENT, run.id, run.sessionId, `${run.id}:status`, parts);
  if (waiting?.kind === 'interrupt') return say([textPart(interruptText(waiting.values)), dataPart({ interrupts: waiting.values })]);
  if (waiting?.kind === 'approval') {
    return say([
      textPart(localize(APPROVAL_TEXT, language)(waiting.tool)),
      dataPart({ approval: { tool: waiting.tool, args: waiting.args } }),
    ]);
  }
  if (run.status === 'failed') return say([textPart(run.error?.message ?? localize(FAILED_TEXT, language))]);
  return undefined;
}

/** The interrupts' values (`interrupt(value)`), as the thread shows them. */
export function interruptValuesOf(interrupts: unknown[]): unknown[] {
  return interrupts.map((i) => (i && typeof i === 'object' && 'value' in i ? (i as { value: unknown }).value : i));
}

/** When the task's status last changed, as far as its run tells: its end, else its start, else its creation. */
export function statusTimeOf(run: Pick<RunEntity, 'finishedAt' | 'startedAt' | 'createdAt'>): Date {
  return run.finishedAt ?? run.startedAt ?? run.createdAt;
}

/** The run as a task: its state, status message, the user's message and (once completed) the answer. */
export function taskOf(run: RunEntity, extra: { answer?: string; waiting?: WaitingFor; historyLength?: number } = {}): Task {
  const state = taskStateOf(run);
  const user = message(Role.ROLE_USER, run.id, run.sessionId, `${run.id}:input`, [textPart(run.input.message ?? '')]);
  const history = extra.historyLength === 0 ? [] : [user];
  return {
    id: run.id,
    contextId: run.sessionId,
    status: {
      state,
      message: statusMessageOf(run, extra.waiting),
      timestamp: statusTimeOf(run).toISOString(),
    },
    artifacts: extra.answer !== undefined ? [answerArtifact(extra.answer)] : [],
    history,
    metadata: undefined,
  };
}

/** The text of an AI message chunk of a `messages` stream event (`[chunk, metadata]`); undefined for anything else. */
export function aiTextOf(data: unknown): string | undefined {
  const chunk = (Array.isArray(data) ? data[0] : undefined) as { type?: unknown; content?: unknown } | undefined;
  if (!chunk || (chunk.type !== 'AIMessageChunk' && chunk.type !== 'ai')) return undefined;
  if (typeof chunk.content === 'string') return chunk.content;
  if (!Array.isArray(chunk.content)) return undefined;
  return chunk.content
    .map((p: unknown) =>
      p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '',
    )
    .join('');
}
