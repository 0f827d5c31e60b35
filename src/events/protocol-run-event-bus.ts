import { RunProtocolEvents } from './protocol-events';
import { type RunEvent, RunEventBus, type SubscribeOptions } from './run-event-bus';
import { type ThreadEventLog, type ThreadLogEntry, threadLogKey } from './thread-event-log';

/** What a protocol run's `metadata` event carries (set by the run driver from the run's stream request). */
export interface ProtocolRunMark {
  tenant_id: string;
  thread_id: string;
  graph_id: string;
}

/**
 * The run event bus, plus the thread event protocol: a run marked as a protocol run (its `metadata` event carries
 * `protocol`) has each of its events converted where it is published (in the process that executes it) and
 * appended to its thread's log, which numbers them once. Other runs pass straight through.
 */
export class ProtocolRunEventBus extends RunEventBus {
  private readonly runs = new Map<string, { thread: string; events: RunProtocolEvents }>();

  constructor(
    private readonly inner: RunEventBus,
    private readonly log: ThreadEventLog,
  ) {
    super();
  }

  publish(runId: string, event: string, data: unknown): void {
    this.inner.publish(runId, event, data);
    if (event === 'metadata') return this.opened(runId, data);
    const run = this.runs.get(runId);
    if (!run) return;
    if (event === 'result') return this.append(run.thread, run.events.ended(errorOf(data)));
    if (event === 'interrupt') return this.append(run.thread, run.events.ended(null, true));
    this.append(run.thread, run.events.chunk(event, data));
  }

  end(runId: string): void {
    this.inner.end(runId);
    const run = this.runs.get(runId);
    if (!run) return;
    this.runs.delete(runId);
    this.append(run.thread, run.events.ended());
  }

  subscribe(runId: string, opts?: SubscribeOptions): AsyncIterable<RunEvent> {
    return this.inner.subscribe(runId, opts);
  }

  /** Shutdown: the inner bus flushes and closes (Nest sees only this provider). */
  async onModuleDestroy(): Promise<void> {
    await (this.inner as { onModuleDestroy?: () => Promise<void> }).onModuleDestroy?.();
  }

  private opened(runId: string, data: unknown): void {
    const mark = (data as { protocol?: ProtocolRunMark } | null)?.protocol;
    if (!mark) return;
    const run = { thread: threadLogKey(mark.tenant_id, mark.thread_id), events: new RunProtocolEvents(mark.graph_id) };
    this.runs.set(runId, run);
    this.append(run.thread, run.events.started());
  }

  private append(thread: string, entries: ThreadLogEntry[]): void {
    for (const e of entries) this.log.append(thread, e);
  }
}

function errorOf(result: unknown): string | null {
  const error = (result as { error?: { message?: string; code?: string } | null } | null)?.error;
  return error ? (error.message ?? error.code ?? 'failed') : null;
}
