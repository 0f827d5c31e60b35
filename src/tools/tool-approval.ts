import { Command } from '@langchain/langgraph';

import type { ChatResult } from '../core/chat-result';
import { type Language, localize, type Messages } from '../core/language';
import type { RunnableGraph } from '../core/run-types';
import type { PendingApproval, RunEntity } from '../database/entities';
import type { ModelCallRecord } from '../llm/usage-collector';
import { type ApprovalRequest, type GuardOptions, ToolGuard } from './tool-guard';

/**
 * The orchestrator's side of the tool guard and of tool approval (TOOL_APPROVAL): the per-run guard put into
 * `configurable`, the pause seen in the graph's stream, the resume `Command` after an operator's decision,
 * and the answer a sync request gets while its run waits.
 */

/** A graph run stopped at `interrupt()` on a tool call that needs an operator's approval. */
export class ApprovalPending extends Error {
  constructor(readonly request: ApprovalRequest) {
    super(`waiting for approval of ${request.tool}`);
    this.name = 'ApprovalPending';
  }
}

interface MessageLike {
  getType?: () => string;
  _getType?: () => string;
}

function isToolMessage(m: unknown): boolean {
  const msg = m as MessageLike | null;
  return (msg?.getType ?? msg?._getType)?.call(msg) === 'tool';
}

/**
 * The run's guard. Tainted from the start when the thread is (`opts.thread`: an earlier turn, or the thread it was
 * copied from, took in untrusted text — thread-taint.ts), when the thread's history holds tool output (an earlier
 * turn's results stay in the model's context; threads from before taint was recorded), or when the run resumes
 * mid-turn (text may have entered before the pause unseen by this guard, so it fails closed on network arguments).
 */
export async function createRunToolGuard(
  graph: RunnableGraph,
  configurable: Record<string, unknown>,
  opts: GuardOptions & { message: string; resumed: boolean; state?: { messages?: unknown } },
): Promise<ToolGuard> {
  const guard = new ToolGuard(opts.message, opts);
  if (opts.resumed) guard.assumeTainted('this turn before it paused');
  // the thread's state as the run found it (read already by the orchestrator), or read here
  const state = opts.state ?? ((await graph.getState({ configurable })).values as { messages?: unknown } | undefined);
  const toolOutputs = Array.isArray(state?.messages) ? state.messages.filter(isToolMessage) : [];
  // one mark for all of them: the thread's record is written once, not per message
  if (toolOutputs.length) await guard.markTainted('tool output of earlier turns', toolOutputs.map(contentOf).join('\n'));
  return guard;
}

function contentOf(m: unknown): string {
  const content = (m as { content?: unknown }).content;
  return typeof content === 'string' ? content : JSON.stringify(content ?? '');
}

/**
 * After an operator's decision: the Command that resumes the paused graph with it (LangGraph
 * human-in-the-loop). The model calls made before the pause are already in the run's persisted usage.
 */
export function resumeAfterDecision(run: RunEntity): Command | undefined {
  const decision = run.pendingApproval?.decision;
  if (!decision) return undefined;
  return new Command({ resume: { approved: decision.approved } });
}

/** `__interrupt__` in a stream chunk (modes `updates` and `values` both carry it). */
export function interruptsOf(chunk: unknown): unknown[] | undefined {
  const value = chunk && typeof chunk === 'object' ? (chunk as Record<string, unknown>).__interrupt__ : undefined;
  return Array.isArray(value) ? value : undefined;
}

/** The tool-approval request among a paused graph's interrupts; throws for any other kind of interrupt. */
export function approvalRequestOf(interrupts: unknown[]): ApprovalRequest {
  for (const i of interrupts) {
    const value = (i as { value?: Partial<ApprovalRequest> } | null)?.value;
    if (value?.type === 'tool_approval' && typeof value.tool === 'string') return value as ApprovalRequest;
  }
  throw new Error('the graph paused on an interrupt that is not a tool approval');
}

export function toPendingApproval(request: ApprovalRequest, modelCalls: readonly ModelCallRecord[]): PendingApproval {
  return {
    tool: request.tool,
    args: request.args,
    tool_call_id: request.tool_call_id,
    requested_at: new Date().toISOString(),
    model_calls_before: [...modelCalls],
  };
}

/** The call as shown on GET /v1/jobs/{id}. */
export function pendingCallView({ tool, args, tool_call_id, requested_at }: PendingApproval) {
  return { tool, args, tool_call_id, requested_at };
}

/** The answer while a call waits for an operator, per language (core/language.ts). */
const PENDING_TEXT: Messages<(tool: string, runId: string) => string> = {
  en: (tool, runId) =>
    `The ${tool} call needs an operator's approval; the request continues once it is approved (POST /v1/jobs/${runId}/approve or /reject).`,
  ko: (tool, runId) =>
    `도구 실행(${tool})에 운영자 승인이 필요합니다. 승인 후 처리가 계속됩니다. (POST /v1/jobs/${runId}/approve 또는 /reject)`,
};

/** What `POST /v1/chat` answers while its run waits for an operator, in the language of the user's message. */
export function pendingApprovalResult(
  run: RunEntity,
  pending: PendingApproval,
  usage: { ms: number; llmCalls: number; model: string | null },
  language: Language = 'en',
): ChatResult {
  return {
    response: localize(PENDING_TEXT, language)(pending.tool, run.id),
    session_id: run.sessionId,
    run_id: run.id,
    agent: run.agent,
    tools_used: [],
    tool_calls: [],
    sources: [],
    execution_time_ms: usage.ms,
    llm_calls: usage.llmCalls,
    error: null,
    metadata: {
      thread_id: run.sessionId,
      model: usage.model,
      status: 'interrupted',
      approval_pending: true,
      job_id: run.id,
      pending_approval: pendingCallView(pending),
    },
  };
}
