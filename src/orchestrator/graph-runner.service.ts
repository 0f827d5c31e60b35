import type { BaseMessage } from '@langchain/core/messages';
import { HumanMessage, isBaseMessageChunk } from '@langchain/core/messages';
import type { BaseStore } from '@langchain/langgraph';
import { Inject, Injectable } from '@nestjs/common';

import type { AgentDefinition, TurnContext } from '../agents/agent-definition';
import { AgentRegistry } from '../agents/agent-registry.service';
import { RUN_AUTH_KEY_PREFIX, runAuthConfigurable } from '../auth/run-identity';
import { threadIdOf } from '../auth/tenant';
import { AppConfig } from '../config/app-config';
import { detectLanguage } from '../core/language';
import { RUN_CONTEXT_KEY, type RunContext, withRunContext } from '../core/run-context';
import { type FinalCheckpoint, OpeningRead, PendingWrites } from '../database/checkpoint-writer';
import type { RunEntity } from '../database/entities';
import { LANGGRAPH_STORE } from '../database/store/store.module';
import { StoreOwners } from '../database/store/store-owners';
import { TenantStore } from '../database/store/tenant-store';
import { streamWithEvents } from '../events/graph-events';
import {
  eventNameOf,
  type GraphStreamMode,
  graphStreamModes,
  publishableChunkOf,
  publishedModesOf,
  streamOptionsOf,
  streamRequestOf,
} from '../events/graph-stream';
import { RunEventBus } from '../events/run-event-bus';
import { toWire } from '../events/wire';
import type { RunBudget } from '../llm/run-budget';
import { currentRun } from '../observability/log-context';
import { phaseSince, recordingPhases } from '../observability/phases';
import type { PersistentUsageCollector } from '../runs/persistent-usage';
import { RunLedger } from '../runs/store/run-ledger';
import { RunStore, type ThreadOpening } from '../runs/store/run-store';
import { SessionStore } from '../runs/store/session-store';
import { ApprovalPending, approvalRequestOf, createRunToolGuard, interruptsOf, resumeAfterDecision } from '../tools/tool-approval';
import { consentedTools } from '../tools/tool-consent';
import type { TaintSummary } from '../tools/tool-guard';

export interface ProgressEvent {
  run_id: string;
  node: string;
  step: number;
}

export interface TokenEvent {
  node: string;
  content: string;
}

/** What a graph run reports as it goes, and what it needs from the run's execution. */
export interface GraphRunOptions {
  signal?: AbortSignal;
  onProgress?: (e: ProgressEvent) => void;
  /** model tokens as they arrive (graph stream mode `messages`) */
  onToken?: (e: TokenEvent) => void;
  /** its thread has no checkpoint to read (a session created with the run, or none found when it was started) */
  newThread?: boolean;
  /** its session was created with the run (by the statement that accepted it): no taint record to read yet */
  sessionCreated?: boolean;
  /** what it reads of its thread first, read already by the statement that started it (RunStore.startInSession) */
  opening?: ThreadOpening;
  /** before a tool that acts on the world: rejects when this attempt no longer holds the run (TurnLease's KeptLease) */
  fence?: () => Promise<void> | undefined;
}

/** A graph run's final values, and how its tool guard saw untrusted text (for the run's trace). */
export interface GraphRunResult {
  values: Record<string, unknown>;
  taint?: TaintSummary;
  /** the run's last checkpoint (durability `exit`), not yet written: it goes with the run's end (RunEnd.checkpoint) */
  checkpoint?: FinalCheckpoint;
}

/** The graph stopped on an interrupt that is not a tool approval: the run ends `interrupted`. */
export class GraphInterrupted extends Error {
  constructor(readonly interrupts: unknown[]) {
    super('the graph was interrupted');
    this.name = 'GraphInterrupted';
  }
}

function isApprovalRequest(interrupts: unknown[]): boolean {
  return interrupts.some((i) => (i as { value?: { type?: unknown } } | null)?.value?.type === 'tool_approval');
}

/**
 * Runs an agent's graph for a leased run: the thread's checkpoint (resumed, approved or fresh), the per-run tool
 * guard, the stream modes the run publishes, and the final values — or the interrupt it stopped on.
 */
/** The modes the runner reads itself (progress, state, interrupts, tokens). */
const OWN_MODES = new Set(['updates', 'values', 'messages']);

@Injectable()
export class GraphRunner {
  constructor(
    private readonly agents: AgentRegistry,
    private readonly config: AppConfig,
    private readonly ledger: RunLedger,
    private readonly runs: RunStore,
    private readonly events: RunEventBus,
    @Inject(LANGGRAPH_STORE) private readonly store: BaseStore,
    private readonly owners: StoreOwners,
    private readonly sessions: SessionStore,
  ) {}

  async run(
    agent: AgentDefinition,
    run: RunEntity,
    turn: TurnContext,
    opts: GraphRunOptions,
    usage: PersistentUsageCollector,
    budget: RunBudget,
  ): Promise<GraphRunResult> {
    // the run's context: one typed object under one key (core/run-context.ts); the guard, the opening read and
    // the pending writes join it below, before the graph runs
    const context: RunContext = {
      tenantId: run.tenantId,
      runId: run.id,
      language: detectLanguage(turn.message, this.config.defaultLanguage),
      usage,
      budget,
      ledger: this.ledger.toolLedger(run.id, run.attempts),
      // a leased run: tools ask the fence; checkpoint statements carry the attempt as their predicate
      ...(opts.fence ? { fence: opts.fence, attempt: run.attempts } : {}),
    };
    // `tenant_id` and `run_id` are shown to graphs, as LangGraph Platform shows its run's ids (the README's LangGraph API
    // contract); the service itself reads only the run context
    const configurable = {
      thread_id: threadIdOf(run.tenantId, run.sessionId),
      tenant_id: run.tenantId,
      run_id: run.id,
      ...withRunContext(context),
    };
    const resume = run.attempts > 1 && (await this.checkpointOfThisRun(agent, configurable, run.id));
    // injection: the per-run tool guard; an operator's decision resumes a paused run with a Command
    const approval = resumeAfterDecision(run);
    if (approval) await this.runs.consumeDecision(run.id); // a decision answers one pause, never a later one
    const from = !resume && !approval && run.input.checkpoint_id ? { checkpoint_id: run.input.checkpoint_id } : {};
    // a turn starting from the thread's latest checkpoint reads it once, for the guard and the graph
    const opening = resume || approval || from.checkpoint_id ? undefined : await this.openingRead(agent, configurable, opts);
    // taint belongs to the thread: its record (earlier turns, the thread it was copied from) and what enters this run
    // (read even for a thread without checkpoints: the record may be older than any checkpoint kept; not for a
    // session this run's own acceptance created: none can exist, its id was unknown until then)
    const thread =
      opts.sessionCreated && run.attempts === 1
        ? null
        : opts.opening
          ? opts.opening.taint
          : await this.sessions.taintOf(run.tenantId, run.sessionId);
    const guard = await createRunToolGuard(agent.graph, configurable, {
      message: turn.message,
      approvalTools: this.config.toolApproval,
      allowed: consentedTools(this.config.toolConsent.rules, agent.name, run.input.allow_tools ?? run.input.configurable?.allow_tools),
      askWhenTainted: this.config.toolConsent.askWhenTainted,
      resumed: resume || Boolean(approval),
      thread,
      record: (taint) => this.sessions.recordTaint(run.tenantId, run.sessionId, run.id, taint),
      ...(opening ? { state: opening.tuple?.checkpoint.channel_values ?? {} } : {}),
    });
    // the run's events: its requested stream modes, and tokens (from `messages`) when asked for
    const request = streamRequestOf(run.input.stream);
    const tokens = Boolean(opts.onToken || request?.tokens);
    const publishModes = publishedModesOf(request);
    const subgraphs = Boolean(request?.subgraphs);
    // a LangGraph API run's config.tags / recursion_limit and durability (validated by its API)
    const lgOptions = (run.input.lg?.graph_options ?? {}) as {
      tags?: string[];
      recursion_limit?: number;
      durability?: 'exit' | 'async' | 'sync';
    };
    const input = approval ?? (resume || run.input.continue ? null : tagTurnInput(agent.buildInput(turn), run.id));
    const durability = lgOptions.durability ?? this.durabilityOf(agent, run);
    // the final state: the last `values` chunk, or — a graph whose state is its checkpoint's values, checkpointed
    // once at its end here — the checkpoint written with the run's end (no state streamed after every step)
    const outputKeys = stateKeysInCheckpoint(agent, this.agents.checkpointer, durability);
    const own: GraphStreamMode[] = [...(outputKeys ? [] : ['values' as const]), 'updates', ...(tokens ? ['messages' as const] : [])];
    // the run's pending writes go with its next checkpoint (an `async` run's checkpoints with each other); flushed as the stream ends
    const pending = new PendingWrites(20, durability === 'async', durability === 'exit');
    Object.assign(context, { guard, pendingWrites: pending, ...(opening ? { openingRead: opening } : {}) });
    const graphOptions = {
      configurable: {
        ...clientConfigurableOf(run.input.configurable),
        ...lgConfigurableOf(run),
        ...runAuthConfigurable(run.input.identity),
        ...configurable,
        ...from,
      },
      ...(run.input.context ? { context: run.input.context } : {}),
      ...(run.input.interrupt_before ? { interruptBefore: run.input.interrupt_before } : {}),
      ...(run.input.interrupt_after ? { interruptAfter: run.input.interrupt_after } : {}),
      signal: opts.signal,
      // the tenant's view of the LangGraph store: `config.store` / `getStore()` in the graph's nodes
      // (a user's run puts items as theirs: StoreOwners, the owner rule of /store/items)
      store: new TenantStore(this.store, run.tenantId, run.owner ? { user: run.owner, owners: this.owners } : undefined),
      streamMode: graphStreamModes(own, request),
      ...streamOptionsOf(request),
      subgraphs,
      durability,
      recursionLimit: lgOptions.recursion_limit ?? 100,
      ...(lgOptions.tags ? { tags: lgOptions.tags } : {}),
      runName: `${agent.name}:${run.id}`,
      // a LangGraph API run's metadata goes into its checkpoints' metadata (history filters on it), as on LangGraph Server
      metadata: { ...lgMetadataOf(run), run_id: run.id, session_id: run.sessionId },
    };
    // LangGraph Server's `events` mode needs LangChain's callbacks: only for the runs that ask for it
    const stream = request?.events
      ? streamWithEvents(agent.graph, input, graphOptions, (e) => this.events.publish(run.id, 'events', toWire(e)))
      : await agent.graph.stream(input, graphOptions);
    let step = 0;
    const observed = currentRun();
    observed?.graphStarted();
    let values: Record<string, unknown> | undefined;
    let stepStarted = recordingPhases() ? performance.now() : 0;
    let interrupts: unknown[] | undefined;
    const streamedAt = new Set<string>(); // `step:node` whose model call streamed its tokens
    // the pending writes are flushed before the run's outcome is read or thrown, however the stream ends (a
    // run that ends here takes its last checkpoint to write with its end, below)
    let streamed = false;
    try {
      for await (const part of stream as AsyncIterable<unknown[]>) {
        const [namespace, mode, chunk] = (subgraphs ? part : [[], ...part]) as [string[], string, Record<string, unknown>];
        if (publishModes.has(mode)) this.events.publish(run.id, eventNameOf(mode, namespace), toWire(publishableChunkOf(mode, chunk)));
        if (namespace.length > 0 && mode !== 'messages') continue; // progress and state are the root graph's
        if (!OWN_MODES.has(mode)) continue; // published above (custom, tasks, tools, …): not a step of the run
        if (mode === 'messages' && !tokens) continue;
        if (mode !== 'messages' && interruptsOf(chunk)) {
          interrupts = interruptsOf(chunk);
          continue;
        }
        if (mode === 'values') {
          values = chunk;
          continue;
        }
        if (mode === 'messages') {
          const [message, meta] = chunk as unknown as [BaseMessage, { langgraph_node?: string; langgraph_step?: number }];
          const text = typeof message?.content === 'string' ? message.content : '';
          if (!text || message.getType?.() === 'tool') continue;
          // a node that streamed its model's answer and then returns it as a new message: the tokens are sent once
          const at = `${meta?.langgraph_step}:${meta?.langgraph_node}`;
          if (isBaseMessageChunk(message)) streamedAt.add(at);
          else if (streamedAt.has(at)) continue;
          const token = { node: meta?.langgraph_node ?? 'unknown', content: text };
          this.events.publish(run.id, 'token', token);
          opts.onToken?.(token);
          continue;
        }
        step += 1;
        observed?.nodesEnded(Object.keys(chunk));
        const progress = { run_id: run.id, node: Object.keys(chunk)[0] ?? 'unknown', step };
        if (stepStarted) {
          phaseSince(`step:${progress.node}`, stepStarted); // the node, and LangGraph's work around it
          stepStarted = performance.now();
        }
        this.events.publish(run.id, 'progress', progress);
        opts.onProgress?.(progress);
      }
      streamed = true;
    } finally {
      if (!streamed) await pending.flush();
    }
    if (stepStarted) phaseSince('graph_exit', stepStarted); // the graph's last step to its end (an `exit` run's checkpoint goes with its result)
    // a run that pauses or stops on an interrupt writes its checkpoint now (the state it resumes from)
    const ends = !interrupts && !run.input.interrupt_before && !run.input.interrupt_after;
    if (!ends) await pending.flush();
    let checkpoint = ends ? await pending.takeFinal() : undefined;
    if (interrupts && isApprovalRequest(interrupts)) throw new ApprovalPending(approvalRequestOf(interrupts));
    // the graph's own interrupt() (or interrupt_before / interrupt_after): the run ends, a `command` resumes it
    if (interrupts) throw new GraphInterrupted(interrupts);
    if (run.input.interrupt_before || run.input.interrupt_after) {
      const state = await agent.graph.getState({ configurable });
      if (state.next.length > 0) throw new GraphInterrupted([]);
    }
    // the last `values` chunk is the final state, or the checkpoint held for the end: no need to read it back
    if (!values && outputKeys) values = checkpoint?.valuesOf(outputKeys);
    if (!values) {
      await checkpoint?.write(); // read back below
      checkpoint = undefined;
      values = (await agent.graph.getState({ configurable })).values as Record<string, unknown>;
    }
    return { values, taint: guard.summary(), ...(checkpoint ? { checkpoint } : {}) };
  }

  /**
   * The thread's root checkpoint for the run's start (none to read for a thread created by the run), when the
   * agent's graph keeps its checkpoints in the service's checkpointer; otherwise undefined (each reads its own).
   */
  private async openingRead(
    agent: AgentDefinition,
    configurable: { thread_id: string },
    { newThread, opening }: GraphRunOptions,
  ): Promise<OpeningRead | undefined> {
    const saver = this.agents.checkpointer;
    if ((agent.graph as { checkpointer?: unknown }).checkpointer !== saver) return undefined;
    if (newThread) return new OpeningRead(undefined);
    // read by the statement that started the run: made into the tuple the saver's getTuple would return
    if (opening) return new OpeningRead(await saver.tupleOfRow(configurable.thread_id, opening.checkpoint));
    return new OpeningRead(await saver.getTuple({ configurable: { thread_id: configurable.thread_id, checkpoint_ns: '' } }));
  }

  /**
   * A retried run (worker crash, hand-back) resumes from its last checkpoint when the thread's latest
   * checkpoint already holds this turn — its user message carries the run id as its message id — so the
   * history gets no second copy of the message; a turn whose graph had finished just returns its final state.
   * Agents without a `messages` channel resume when the checkpoint has steps left.
   */
  private async checkpointOfThisRun(agent: AgentDefinition, configurable: Record<string, unknown>, runId: string): Promise<boolean> {
    const state = await agent.graph.getState({ configurable });
    const messages = (state.values as { messages?: unknown } | undefined)?.messages;
    if (Array.isArray(messages)) return messages.some((m: { id?: string }) => m?.id === runId);
    return state.next.length > 0;
  }

  /**
   * Queued runs checkpoint after every step (RUN_CHECKPOINTS=step), so a crash resumes mid-turn. `async`: a step's
   * checkpoint is written while the next step starts (its model request is on the wire before the write returns);
   * a crash in that millisecond re-runs the step, as a crash before a `sync` write returns does.
   */
  private durabilityOf(agent: AgentDefinition, run: RunEntity): 'exit' | 'async' | 'sync' {
    if (this.config.durability.checkpoints === 'step' && run.mode === 'async') return 'async';
    return agent.durability ?? 'async';
  }
}

/**
 * Keys of `configurable` a client never sets: the service's own, the caller's identity (`langgraph_auth_*`, set from
 * the run's principal), LangGraph's checkpoint keys and internals (`__…`).
 */
const RESERVED_CONFIGURABLE = new Set([
  'thread_id',
  RUN_CONTEXT_KEY,
  // shown to graphs (never taken from a client)
  'tenant_id',
  'run_id',
]);

/** A LangGraph API run's `configurable` without the keys the service sets itself (which win anyway). */
export function clientConfigurableOf(configurable: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!configurable) return {};
  return Object.fromEntries(
    Object.entries(configurable).filter(
      ([k]) => !RESERVED_CONFIGURABLE.has(k) && !k.startsWith('__') && !k.startsWith('checkpoint') && !k.startsWith(RUN_AUTH_KEY_PREFIX),
    ),
  );
}

function objectOf(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** What a LangGraph API run's graph finds in `configurable` besides the client's keys, as on LangGraph Server. */
function lgConfigurableOf(run: RunEntity): Record<string, unknown> {
  const lg = run.input.lg;
  return lg ? { assistant_id: lg.assistant_id, graph_id: run.agent } : {};
}

/** A LangGraph API run's metadata for its graph: the run's own, its assistant and graph, its attempt (none for other runs). */
function lgMetadataOf(run: RunEntity): Record<string, unknown> {
  const lg = run.input.lg;
  if (!lg) return {};
  return { ...objectOf(lg.metadata), assistant_id: lg.assistant_id, graph_id: run.agent, run_attempt: run.attempts };
}

/** The turn's user message gets the run id as its id: a resumed run can find out that its turn is in the checkpoint. */
function tagTurnInput(input: Record<string, unknown>, runId: string): Record<string, unknown> {
  const messages = input.messages;
  if (!Array.isArray(messages)) return input;
  const human = messages.filter((m): m is HumanMessage => m instanceof HumanMessage && !m.id);
  if (human.length !== 1) return input;
  const [m] = human;
  // a new message, not an assignment: checkpoints serialize the constructor's fields
  const tagged = new HumanMessage({ content: m.content, name: m.name, additional_kwargs: m.additional_kwargs, id: runId });
  return { ...input, messages: messages.map((x) => (x === m ? tagged : x)) };
}

/**
 * The state keys of a graph whose final state is its last checkpoint's values (AgentDefinition.stateInCheckpoint),
 * for a run that checkpoints once at its end in the service's checkpointer (held for the run's end); else undefined.
 */
function stateKeysInCheckpoint(agent: AgentDefinition, saver: unknown, durability: string): readonly string[] | undefined {
  const graph = agent.graph as { checkpointer?: unknown; outputChannels?: unknown };
  if (!agent.stateInCheckpoint || durability !== 'exit' || graph.checkpointer !== saver) return undefined;
  return Array.isArray(graph.outputChannels) ? (graph.outputChannels as string[]) : undefined;
}
