import { randomUUID } from 'node:crypto';

import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Annotation, InMemoryStore, interrupt, MemorySaver, messagesStateReducer, StateGraph } from '@langchain/langgraph';
import { Test } from '@nestjs/testing';
import { z } from 'zod';

import type { AgentDefinition, TurnContext } from '../agents/agent-definition';
import { AgentRegistry } from '../agents/agent-registry.service';
import { agentTexts } from '../agents/shared/messages';
import { executeTool } from '../agents/shared/tool-executor';
import { runAsPrincipal } from '../auth/tenant';
import { AppConfig } from '../config/app-config';
import type { RunEntity } from '../database/entities';
import { LANGGRAPH_STORE } from '../database/store/store.module';
import { StoreOwners } from '../database/store/store-owners';
import { InProcessRunEventBus } from '../events/in-process-run-event-bus';
import { RunEventBus } from '../events/run-event-bus';
import { LlmService } from '../llm/llm.service';
import { RunBudget } from '../llm/run-budget';
import { MetricsService } from '../observability/metrics.service';
import { RunObserver } from '../observability/run-observer.service';
import { InlineRunQueue } from '../runs/inline-run-queue';
import { RunCancellation } from '../runs/run-cancellation.service';
import { RunEnds } from '../runs/run-ends.service';
import { RUN_WORKER, RunQueue } from '../runs/run-queue';
import { InMemoryRunState } from '../runs/store/in-memory-run-store';
import { RunLedger } from '../runs/store/run-ledger';
import { RunStore } from '../runs/store/run-store';
import { SessionStore } from '../runs/store/session-store';
import { ScopeValidator } from '../scope/scope-validator.service';
import { AgentOrchestrator } from './agent-orchestrator.service';
import { GraphRunner } from './graph-runner.service';
import { RunAdmission } from './run-admission.service';
import { RunDriver } from './run-driver.service';
import { RunOutcomes } from './run-outcomes.service';
import { RunRecovery } from './run-recovery.service';
import { RunsService } from './runs.service';
import { ToolApprovalService } from './tool-approval.service';
import { TurnLease } from './turn-lease.service';

/**
 * The run core — admission, leases, the driver, the queue's in-process driver, hand-back, cancel, pause and
 * resume, idempotency, budgets, recovery — unit-tested against the in-memory run store and a real LangGraph
 * graph (MemorySaver): no Postgres, no Redis, milliseconds per case.
 */

/** What the test agent's one node does with a message: answer, wait for a gate, ask for approval, spend budget. */
class Script {
  readonly gates = new Map<string, { opened: Promise<void>; open: () => void }>();
  readonly started: string[] = [];
  readonly toolRuns: string[] = [];

  gate(message: string): () => void {
    let open!: () => void;
    const opened = new Promise<void>((r) => (open = r));
    this.gates.set(message, { opened, open });
    return open;
  }
}

const State = Annotation.Root({
  messages: Annotation<BaseMessage[]>({ reducer: messagesStateReducer, default: () => [] }),
});

function testAgent(script: Script, checkpointer: MemorySaver): AgentDefinition {
  const graph = new StateGraph(State)
    .addNode('respond', async (state, config) => {
      const text = String(state.messages.at(-1)?.content ?? '');
      script.started.push(text);
      const gate = script.gates.get(text);
      if (gate) await Promise.race([gate.opened, abortOf(config.signal)]);
      if (text.startsWith('approve:')) {
        const decision = interrupt({ type: 'tool_approval', tool: 'python_repl', args: { code: '1+1' }, tool_call_id: `call-${text}` });
        if (!(decision as { approved?: boolean }).approved) return { messages: [new AIMessage('rejected')] };
        script.toolRuns.push(text);
      }
      if (text.startsWith('spend:')) for (let i = 0; i < 5; i++) RunBudget.of(config)?.chargeModelCall();
      if (text.startsWith('act:')) {
        // a tool that acts on the world (not read-only), after the gate
        const send = tool(async () => (script.toolRuns.push(text), 'sent'), {
          name: 'send_mail',
          description: 'sends',
          schema: z.object({}),
        });
        const outcome = await executeTool(send, { name: 'send_mail', args: {} }, config);
        return { messages: [new AIMessage(`echo ${text}: ${outcome.text}`)] };
      }
      return { messages: [new AIMessage(`echo ${text}`)] };
    })
    .addEdge('__start__', 'respond')
    .addEdge('respond', '__end__')
    .compile({ checkpointer });
  return {
    name: 'echo',
    description: 'answers with what it was told',
    graph,
    buildInput: (turn: TurnContext) => ({ messages: [new HumanMessage(turn.message)] }),
    toOutcome: (state) => {
      const last = (state.messages as BaseMessage[]).at(-1);
      return { response: String(last?.content ?? ''), toolCalls: [], sources: [], error: null, metadata: {}, trace: {} };
    },
  };
}

function abortOf(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
}

async function until<T>(check: () => T | undefined | Promise<T | undefined>, ms = 3000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error('condition not met');
    await new Promise((r) => setImmediate(r));
  }
}

async function core(env: Record<string, string> = {}) {
  const state = new InMemoryRunState();
  const script = new Script();
  const checkpointer = new MemorySaver();
  const agent = testAgent(script, checkpointer);
  const config = new AppConfig({ WORKER_CONCURRENCY: '2', RUN_SHUTDOWN_GRACE_MS: '50', DEFAULT_AGENT: 'echo', ...env });
  const agents = {
    get: (n: string) => (n === 'echo' ? agent : undefined),
    names: () => ['echo'],
    checkpointer,
  };
  const module = await Test.createTestingModule({
    providers: [
      AgentOrchestrator,
      RunAdmission,
      RunOutcomes,
      GraphRunner,
      TurnLease,
      RunDriver,
      RunsService,
      RunRecovery,
      ToolApprovalService,
      RunCancellation,
      RunEnds,
      RunObserver,
      MetricsService,
      InlineRunQueue,
      { provide: RunQueue, useExisting: InlineRunQueue },
      { provide: RUN_WORKER, useValue: true },
      { provide: RunStore, useValue: state.runStore },
      { provide: SessionStore, useValue: state.sessionStore },
      { provide: RunLedger, useValue: state.ledger },
      { provide: RunEventBus, useValue: new InProcessRunEventBus(100, 60_000) },
      { provide: AppConfig, useValue: config },
      { provide: AgentRegistry, useValue: agents },
      { provide: LlmService, useValue: { modelName: null } },
      { provide: ScopeValidator, useValue: {} },
      { provide: LANGGRAPH_STORE, useValue: new InMemoryStore() },
      { provide: StoreOwners, useValue: {} }, // these runs have no owner: nothing is recorded
    ],
  }).compile();
  module.get(RunDriver).onApplicationBootstrap(); // the in-process driver's worker loop, without the recovery timers
  return { state, script, module, runs: module.get(RunsService), driver: module.get(RunDriver), config };
}

describe('run core (in-memory run store, in-process queue driver)', () => {
  it('admits a sync turn on a new session: recorded, answered, messages kept, lease released', async () => {
    const { runs, state } = await core();
    const result = await runs.chat({ message: 'hello' });
    expect(result).toMatchObject({ response: 'echo hello', agent: 'echo', error: null });
    const run = state.runs.get(result.run_id)!;
    expect(run).toMatchObject({ status: 'completed', attempts: 1, mode: 'sync' });
    expect(state.messages.map((m) => `${m.role}:${m.content}`)).toEqual(['user:hello', 'assistant:echo hello']);
    expect(state.session('default', result.session_id)).toMatchObject({ activeRunId: null, leaseExpiresAt: null });
  });

  it('refuses what admission refuses, before any run row is written', async () => {
    const { runs, state } = await core({ MAX_MESSAGE_CHARS: '10' });
    await expect(runs.chat({ message: 'hi', agent: 'nope' })).rejects.toMatchObject({ code: 'UNKNOWN_AGENT' });
    await expect(runs.chat({ message: 'x'.repeat(11) })).rejects.toMatchObject({ code: 'MESSAGE_TOO_LARGE' });
    await expect(runs.chat({ message: 'hi', session_id: randomUUID() })).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect(state.runs.size).toBe(0);
  });

  it('runs two sync turns of one session one after the other (the second waits for the lease)', async () => {
    const { runs, state, script } = await core();
    const first = await runs.chat({ message: 'one', session_id: 'client-chosen' });
    const open = script.gate('two');
    const second = runs.chat({ message: 'two', session_id: first.session_id });
    await until(() => script.started.includes('two'));
    const third = runs.chat({ message: 'three', session_id: first.session_id });
    await new Promise((r) => setTimeout(r, 120)); // a few lease polls: the third must not start meanwhile
    expect(script.started).toEqual(['one', 'two']);
    open();
    const [r2, r3] = await Promise.all([second, third]);
    expect([r2.response, r3.response]).toEqual(['echo two', 'echo three']);
    expect(state.runs.get(r3.run_id)!.startedAt!.getTime()).toBeGreaterThanOrEqual(state.runs.get(r2.run_id)!.finishedAt!.getTime());
  });

  it('parks a queued turn of a busy session without holding a slot; another session runs meanwhile; order is kept', async () => {
    const { runs, state, script } = await core({ WORKER_CONCURRENCY: '1' });
    const open = script.gate('a1');
    const a1 = await runs.submit({ message: 'a1', session_id: 's-a' });
    await until(() => script.started.includes('a1'));
    const a2 = await runs.submit({ message: 'a2', session_id: 's-a' });
    const b1 = await runs.submit({ message: 'b1', session_id: 's-b' });
    // with one slot held by a1, b1 can only run if nobody else holds a slot: a2 is parked, not waiting in one
    expect(state.runs.get(a2.id)!.status).toBe('queued');
    open();
    await until(() => [a1, a2, b1].every((r) => state.runs.get(r.id)!.status === 'completed'));
    expect(script.started.indexOf('a2')).toBeGreaterThan(script.started.indexOf('a1'));
  });

  it('cancels a queued run before it starts and a running one at its next step', async () => {
    const { runs, state, script } = await core({ WORKER_CONCURRENCY: '1' });
    script.gate('long');
    const running = await runs.submit({ message: 'long' });
    await until(() => script.started.includes('long'));
    const waiting = await runs.submit({ message: 'later' });
    expect((await runs.cancel(waiting.id)).status).toBe('cancelled');
    await runs.cancel(running.id);
    const ended = await until(() => (state.runs.get(running.id)!.status === 'cancelled' ? state.runs.get(running.id) : undefined));
    expect(ended!.error).toMatchObject({ code: 'CANCELLED' });
    expect(script.started).not.toContain('later');
    await expect(runs.cancel(running.id)).rejects.toMatchObject({ code: 'JOB_ALREADY_FINISHED' });
  });

  it('answers a run cancelled before it started with the user-facing text in its language, not the text’s key', async () => {
    const { runs, module, script } = await core({ WORKER_CONCURRENCY: '1' });
    script.gate('long');
    await runs.submit({ message: 'long' });
    await until(() => script.started.includes('long'));
    const korean = await runs.submit({ message: '나중에 날씨 알려줘' });
    const english = await runs.submit({ message: 'tell me the weather later' });
    await runs.cancel(korean.id);
    await runs.cancel(english.id);
    const outcomes = module.get(RunOutcomes);
    expect((await outcomes.storedResult(korean.id)).response).toBe(agentTexts('ko').cancelled);
    expect((await outcomes.storedResult(english.id)).response).toBe(agentTexts('en').cancelled);
    expect((await outcomes.storedResult(english.id)).error).toMatchObject({ code: 'CANCELLED' });
  });

  it('ends a run the queue refused through the end path: a follower sees its result and end at once', async () => {
    const { runs, module, state } = await core();
    let refuse!: (err: Error) => void;
    jest.spyOn(module.get(InlineRunQueue), 'enqueue').mockImplementationOnce(() => new Promise<void>((_, reject) => (refuse = reject)));
    const submitted = runs.submit({ message: 'refused by the queue' }).catch((e: Error) => e);
    const run = await until(() => [...state.runs.values()].find((r) => r.input.message === 'refused by the queue'));
    await until(() => refuse);
    const seen: string[] = [];
    let result: { response?: string; error?: { code?: string } } | undefined;
    const followed = (async () => {
      for await (const e of module.get(RunEventBus).subscribe(run.id)) {
        seen.push(e.event);
        if (e.event === 'result') result = e.data as typeof result;
      }
    })();
    refuse(new Error('redis did not answer'));
    expect(await submitted).toMatchObject({ message: 'redis did not answer' });
    await Promise.race([followed, new Promise((_, reject) => setTimeout(() => reject(new Error('the follower was not woken')), 500))]);
    expect(seen).toContain('result');
    expect(result).toMatchObject({ response: agentTexts('en').internalError, error: { code: 'QUEUE_UNAVAILABLE' } });
    expect(state.runs.get(run.id)).toMatchObject({ status: 'failed', error: { code: 'QUEUE_UNAVAILABLE' } });
  });

  it('hands a running queued run back at shutdown: queued again, its attempt not counted', async () => {
    const { runs, state, script, driver } = await core({ RUN_SHUTDOWN_GRACE_MS: '20' });
    script.gate('slow');
    const run = await runs.submit({ message: 'slow' });
    await until(() => script.started.includes('slow'));
    await driver.beforeApplicationShutdown();
    expect(state.runs.get(run.id)).toMatchObject({ status: 'queued', attempts: 0 });
    expect(state.session('default', run.sessionId)!.activeRunId).toBeNull();
  });

  it('pauses for a tool approval, releases the session, and resumes after the decision', async () => {
    const { runs, state, script, module } = await core();
    const job = await runs.submit({ message: 'approve:x' });
    await until(() => state.runs.get(job.id)!.status === 'interrupted');
    expect(state.runs.get(job.id)!.pendingApproval).toMatchObject({ tool: 'python_repl', tool_call_id: 'call-approve:x' });
    expect(state.session('default', job.sessionId)!.activeRunId).toBeNull();
    await expect(runs.chat({ message: 'overtake', session_id: job.sessionId })).rejects.toMatchObject({
      code: 'SESSION_AWAITING_APPROVAL',
    });
    expect(script.toolRuns).toEqual([]);
    await module.get(ToolApprovalService).decide(job.id, true, 'default');
    await until(() => state.runs.get(job.id)!.status === 'completed');
    expect(script.toolRuns).toEqual(['approve:x']);
    expect(state.runs.get(job.id)!.result).toMatchObject({ response: 'echo approve:x' });
  });

  it('answers an idempotent repeat with the first run, and refuses another request under the same key', async () => {
    const { runs, state, script } = await core();
    const first = await runs.chat({ message: 'once', idempotency_key: 'k1' });
    const again = await runs.chat({ message: 'once', idempotency_key: 'k1' });
    expect(again.run_id).toBe(first.run_id);
    expect(script.started.filter((m) => m === 'once')).toHaveLength(1);
    await expect(runs.chat({ message: 'different', idempotency_key: 'k1' })).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(state.runs.size).toBe(1);
  });

  it('keys an idempotent repeat by principal: another user or API key of the tenant gets a run of its own', async () => {
    const { runs, state, script } = await core();
    const as = (who: { userId?: string; keyId?: string }) => (message: string) =>
      runAsPrincipal({ tenantId: 'default', permissions: ['read', 'write'], ...who }, () =>
        runs.chat({ message, idempotency_key: 'shared' }),
      );
    const alice = await as({ userId: 'alice' })('same');
    const bob = await as({ userId: 'bob' })('same'); // not a 409, not alice's answer
    const key = await as({ keyId: 'key-2' })('same');
    expect(new Set([alice.run_id, bob.run_id, key.run_id]).size).toBe(3);
    expect([alice, bob, key].map((r) => r.session_id)).toEqual([...new Set([alice.session_id, bob.session_id, key.session_id])]);
    expect((await as({ userId: 'alice' })('same')).run_id).toBe(alice.run_id); // alice's own repeat is still hers
    expect(state.runs.size).toBe(3);
    expect(script.started.filter((m) => m === 'same')).toHaveLength(3);
  });

  it('multitask reject is decided where the run is written: concurrent rejects on an idle session let exactly one in', async () => {
    const { runs, state, script } = await core();
    script.gate('hold');
    const accepted = await Promise.allSettled(
      Array.from({ length: 20 }, () => runs.submit({ message: 'hold', session_id: 'one-at-a-time', multitask: 'reject' })),
    );
    expect(accepted.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
    for (const a of accepted.filter((x) => x.status === 'rejected')) expect(a.reason).toMatchObject({ code: 'SESSION_BUSY' });
    expect([...state.runs.values()].filter((r) => r.sessionId === 'one-at-a-time')).toHaveLength(1);
    // enqueue still lines up behind it; interrupt stops both and runs alone
    const queued = await runs.submit({ message: 'next', session_id: 'one-at-a-time', multitask: 'enqueue' });
    expect(state.runs.get(queued.id)!.status).toBe('queued');
    const first = (accepted.find((a) => a.status === 'fulfilled') as PromiseFulfilledResult<RunEntity>).value;
    const last = await runs.submit({ message: 'last', session_id: 'one-at-a-time', multitask: 'interrupt' });
    await until(() => state.runs.get(last.id)!.status === 'completed');
    expect(state.runs.get(first.id)!.status).toBe('cancelled');
    expect(state.runs.get(queued.id)!.status).toBe('cancelled');
    expect(script.started).not.toContain('next');
  });

  it('multitask rollback deletes the runs it stops; reject refuses while one is unfinished, accepts once it ended', async () => {
    const { runs, state, script } = await core();
    script.gate('doomed');
    const doomed = await runs.submit({ message: 'doomed', session_id: 'rb', multitask: 'reject' });
    await until(() => script.started.includes('doomed'));
    await expect(runs.submit({ message: 'refused', session_id: 'rb', multitask: 'reject' })).rejects.toMatchObject({
      code: 'SESSION_BUSY',
    });
    const after = await runs.submit({ message: 'after', session_id: 'rb', multitask: 'rollback' });
    expect(state.runs.has(doomed.id)).toBe(false);
    await until(() => state.runs.get(after.id)!.status === 'completed');
    const again = await runs.submit({ message: 'again', session_id: 'rb', multitask: 'reject' });
    await until(() => state.runs.get(again.id)!.status === 'completed');
    expect([...state.runs.values()].filter((r) => r.sessionId === 'rb').map((r) => r.input.message)).toEqual(['after', 'again']);
  });

  it('multitask interrupt under 20 concurrent acceptances on a busy session: one decision each, exactly one survives and runs', async () => {
    const { runs, state, script } = await core();
    script.gate('busy');
    const busy = await runs.submit({ message: 'busy', session_id: 'mt-int' });
    await until(() => script.started.includes('busy'));
    const accepted = await Promise.all(
      Array.from({ length: 20 }, (_, i) => runs.submit({ message: `int-${i}`, session_id: 'mt-int', multitask: 'interrupt' })),
    );
    const rows = () => [...state.runs.values()].filter((r) => r.sessionId === 'mt-int');
    await until(() => rows().every((r) => r.status === 'completed' || r.status === 'cancelled'));
    const completed = rows().filter((r) => r.status === 'completed');
    expect(completed).toHaveLength(1);
    expect(rows().filter((r) => r.status === 'cancelled')).toHaveLength(20);
    expect(state.runs.get(busy.id)!.status).toBe('cancelled');
    // the survivor is one of the twenty, and it alone of them ever started
    expect(accepted.map((r) => r.id)).toContain(completed[0].id);
    expect(script.started.filter((m) => m.startsWith('int-'))).toEqual([completed[0].input.message]);
  });

  it('run-service operations: wait, join here, cancel with interrupt or rollback, delete only once ended', async () => {
    const { runs, state, script } = await core();
    // wait: woken by the run's end; join: a run the queue's worker executed is answered from the stored run
    const quick = await runs.submit({ message: 'quick', session_id: 'ops' }, { here: true });
    const waited = await runs.awaitEnd(quick.id);
    expect(waited).toMatchObject({ status: 'completed', result: { response: 'echo quick' } });
    expect(await runs.completedHere(quick.id)).toBeNull();
    // wait with a timeout on a run that does not end: the row as it is
    script.gate('held');
    const held = await runs.submit({ message: 'held', session_id: 'ops' });
    await until(() => script.started.includes('held'));
    expect((await runs.awaitEnd(held.id, { timeoutMs: 20 })).status).toBe('running');
    // delete is refused while it runs; interrupt with wait returns once it has ended
    await expect(runs.deleteEnded(state.runs.get(held.id)!)).rejects.toMatchObject({ code: 'SESSION_BUSY' });
    await runs.stop(state.runs.get(held.id)!, 'interrupt', true);
    expect(state.runs.get(held.id)!.status).toBe('cancelled');
    await runs.stop(state.runs.get(held.id)!, 'interrupt', true); // ended already: left as it is
    expect(state.runs.get(held.id)!.status).toBe('cancelled');
    // rollback: stopped, then deleted
    script.gate('rolled');
    const rolled = await runs.submit({ message: 'rolled', session_id: 'ops' });
    await until(() => script.started.includes('rolled'));
    await runs.stop(state.runs.get(rolled.id)!, 'rollback');
    expect(state.runs.has(rolled.id)).toBe(false);
    await runs.deleteEnded(state.runs.get(held.id)!);
    expect([...state.runs.values()].filter((r) => r.sessionId === 'ops').map((r) => r.input.message)).toEqual(['quick']);
  });

  it('startTurn: a sync turn set going in the request; an idempotent repeat names the first run and is not executed again', async () => {
    const { runs, state, script } = await core();
    const first = await runs.startTurn({ message: 'turn', idempotency_key: 'st' });
    expect(first.repeat).toBe(false);
    const result = await first.done;
    const again = await runs.startTurn({ message: 'turn', idempotency_key: 'st' });
    expect(again).toMatchObject({ repeat: true, run: { id: first.run.id } });
    expect((await again.done).response).toBe(result.response);
    expect(script.started.filter((m) => m === 'turn')).toHaveLength(1);
    expect(state.runs.size).toBe(1);
  });

  it('ends a run that overspends its budget as failed with BUDGET_EXCEEDED', async () => {
    const { runs, state } = await core({ RUN_MAX_MODEL_CALLS: '3' });
    const result = await runs.chat({ message: 'spend:all' });
    expect(result.error).toMatchObject({ code: 'BUDGET_EXCEEDED' });
    expect(state.runs.get(result.run_id)!.status).toBe('failed');
  });

  it('resumes a run whose worker died (lease lapsed) and ends one that died every time', async () => {
    const { runs, state, module, config } = await core();
    const job = await runs.submit({ message: 'survivor', session_id: 'crashy' });
    await until(() => state.runs.get(job.id)!.status === 'completed');
    // a crash: a run left `running` with its lease lapsed, and a poison run that already used its attempts
    const crashed = await state.runStore.createStarted(
      { id: randomUUID(), sessionId: 'crashy', tenantId: 'default', agent: 'echo', mode: 'async', input: { message: 'after crash' } },
      10,
    );
    const poison = await state.runStore.createInNewSession({
      id: randomUUID(),
      sessionId: 'poisoned',
      tenantId: 'default',
      agent: 'echo',
      mode: 'async',
      input: { message: 'poison' },
    });
    Object.assign(state.runs.get(poison.id)!, { status: 'running', attempts: config.durability.maxAttempts });
    state.skewMs = 60_000; // leases lapse, rows look old
    expect(await module.get(RunRecovery).sweep(1000)).toBe(2);
    await until(
      () => ['completed', 'failed'].includes(state.runs.get(crashed.id)!.status) && state.runs.get(poison.id)!.status === 'failed',
    );
    expect(state.runs.get(crashed.id)).toMatchObject({ status: 'completed', attempts: 2 });
    expect(state.runs.get(poison.id)!.error).toMatchObject({ code: 'RUN_ATTEMPTS_EXHAUSTED' });
  });

  it('does not start a side effect when its worker cannot renew the lease before it runs out: handed back, the next attempt acts once', async () => {
    const { runs, state, script } = await core({ RUN_LOCK_MS: '500' });
    const open = script.gate('act:mail');
    const job = await runs.submit({ message: 'act:mail', session_id: 'cut' });
    await until(() => script.started.includes('act:mail'));
    // the worker is cut off from the database: no renewal gets through, the lease runs out by its clock
    const renew = jest.spyOn(state.sessionStore, 'renewLease').mockRejectedValue(new Error('connection timeout'));
    await new Promise((r) => setTimeout(r, 550));
    open();
    // not sent: the run goes back to the queue (its attempt not counted), as a database outage hands it back
    await until(() => state.runs.get(job.id)!.status === 'queued');
    expect(script.toolRuns).toEqual([]);
    expect(state.runs.get(job.id)).toMatchObject({ attempts: 0, result: null });
    renew.mockRestore();
    await until(() => state.runs.get(job.id)!.status === 'completed', 5000);
    expect(state.runs.get(job.id)).toMatchObject({ attempts: 1, result: { response: 'echo act:mail: sent' } });
    expect(script.started.filter((m) => m === 'act:mail')).toHaveLength(2); // the node ran again...
    expect(script.toolRuns).toEqual(['act:mail']); // ...and the mail went once
  });

  it('does not start a side effect once a renewal finds that another attempt has the run', async () => {
    const { runs, state, script } = await core({ RUN_LOCK_MS: '2000' }); // renewed every 500 ms
    const open = script.gate('act:late');
    const job = await runs.submit({ message: 'act:late', session_id: 'taken' });
    await until(() => script.started.includes('act:late'));
    // out of reach past half its lease while another worker took the run over (attempt 2); back just before
    // the gate opens, between two of the timer's renewals: the check before the tool is what finds it
    const renew = jest.spyOn(state.sessionStore, 'renewLease').mockRejectedValue(new Error('connection timeout'));
    await new Promise((r) => setTimeout(r, 1100));
    state.runs.get(job.id)!.attempts = 2;
    renew.mockRestore();
    open();
    await new Promise((r) => setTimeout(r, 200));
    expect(script.toolRuns).toEqual([]);
    expect(state.runs.get(job.id)).toMatchObject({ status: 'running', attempts: 2, result: null }); // the other attempt's to end
  });
});
