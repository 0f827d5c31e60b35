import { type Message, type Part, type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';

/** A remote task that ended without an answer to give: the call fails with the agent's own words, if any. */
const FAILED: ReadonlyMap<TaskState, string> = new Map([
  [TaskState.TASK_STATE_FAILED, 'failed'],
  [TaskState.TASK_STATE_REJECTED, 'rejected the task'],
  [TaskState.TASK_STATE_CANCELED, 'cancelled the task'],
]);

/** The text of a message's or an artifact's parts (files and data parts are named, not inlined). */
export function partsText(parts: readonly Part[] | undefined): string {
  return (parts ?? [])
    .map((p) => {
      const c = p.content;
      if (!c) return '';
      if (c.$case === 'text') return c.value;
      if (c.$case === 'data') return JSON.stringify(c.value);
      if (c.$case === 'url') return `[file: ${p.filename || c.value}]`;
      return `[file: ${p.filename || 'attachment'}]`;
    })
    .join('');
}

/**
 * Collects a remote agent's answer from what it sent — a streamed sequence (task, status updates, artifact chunks,
 * messages) or a blocking call's single Message or Task: the artifacts' text (chunks appended by artifact id), else
 * the last message the agent sent (a direct reply or a status message). Remembers the task and context ids.
 */
export class AnswerCollector {
  taskId?: string;
  contextId?: string;
  /** the remote task's last state, and the agent's words with it */
  state?: TaskState;
  private readonly artifacts = new Map<string, string>();
  private lastMessage = '';

  add(event: StreamResponse): void {
    const p = event.payload;
    if (!p) return;
    if (p.$case === 'message') return this.addMessage(p.value);
    if (p.$case === 'task') return this.addTask(p.value);
    this.note(p.value.taskId, p.value.contextId);
    if (p.$case === 'statusUpdate') {
      if (p.value.status) this.state = p.value.status.state;
      const text = partsText(p.value.status?.message?.parts);
      if (text) this.lastMessage = text;
      return;
    }
    const artifact = p.value.artifact;
    if (!artifact) return;
    const before = p.value.append ? (this.artifacts.get(artifact.artifactId) ?? '') : '';
    this.artifacts.set(artifact.artifactId, before + partsText(artifact.parts));
  }

  /** A blocking call's result. */
  addResult(result: Message | Task): void {
    if ('parts' in result) this.addMessage(result);
    else this.addTask(result);
  }

  /** Why the remote task ended without an answer, or undefined when it did not. */
  failure(): string | undefined {
    const what = this.state === undefined ? undefined : FAILED.get(this.state);
    if (!what) return undefined;
    return this.lastMessage ? `${what}: ${this.lastMessage.slice(0, 300)}` : what;
  }

  /** The answer: the artifacts' text, else the agent's last message. */
  text(): string {
    const artifacts = [...this.artifacts.values()].filter((t) => t.trim());
    return artifacts.length ? artifacts.join('\n\n') : this.lastMessage;
  }

  private addMessage(message: Message): void {
    this.note(message.taskId, message.contextId);
    this.lastMessage = partsText(message.parts);
  }

  private addTask(task: Task): void {
    this.note(task.id, task.contextId);
    if (task.status) this.state = task.status.state;
    const status = partsText(task.status?.message?.parts);
    if (status) this.lastMessage = status;
    for (const a of task.artifacts ?? []) this.artifacts.set(a.artifactId, partsText(a.parts));
  }

  private note(taskId: string | undefined, contextId: string | undefined): void {
    if (taskId) this.taskId = taskId;
    if (contextId) this.contextId = contextId;
  }
}

/** `text` cut at `max` characters, with a marker saying so (for the model and the person reading the trace). */
export function cutAnswer(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max).trimEnd()}\n…[cut: the remote agent's answer was longer than ${max} characters]`;
}
