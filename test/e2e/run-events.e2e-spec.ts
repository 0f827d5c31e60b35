import { type RunEvent, RunEventBus } from '../../src/events/run-event-bus';
import { RunAdmission } from '../../src/orchestrator/run-admission.service';
import { RunDriver } from '../../src/orchestrator/run-driver.service';
import { createTestDatabase, type TestDatabase } from '../support/infra';
import { ScriptedModelServer } from '../support/model-server';
import { type RunningApp, startApp } from '../support/test-app';

/** What a run publishes on the (in-process) event bus, with LangGraph stream modes requested in its input. */
describe('run events', () => {
  const model = new ScriptedModelServer();
  let db: TestDatabase;
  let svc: RunningApp;

  beforeAll(async () => {
    await model.start();
    db = await createTestDatabase('run_events');
    svc = await startApp({ DATABASE_URL: db.url, LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'm', LLM_MAX_RETRIES: '0', LLM_CACHE: 'false' });
  });

  afterAll(async () => {
    await svc?.close();
    await model.stop();
    await db?.drop();
  });

  it('publishes metadata, progress, the requested modes in wire format, the result, then ends', async () => {
    model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '2+2' } }] }, { content: 'Two plus two is four.' });
    const orchestrator = svc.app.get(RunAdmission);
    const bus = svc.app.get(RunEventBus);
    const run = await orchestrator.accept({ message: 'What is 2+2?', agent: 'react', stream: { modes: ['updates', 'messages'] } }, 'sync');
    const events: RunEvent[] = [];
    const reading = (async () => {
      for await (const e of bus.subscribe(run.id)) events.push(e);
    })();
    const result = await svc.app.get(RunDriver).runInRequest({ runId: run.id });
    await reading;

    const names = events.map((e) => e.event);
    expect(events[0]).toMatchObject({ event: 'metadata', data: { run_id: run.id, session_id: run.sessionId, agent: 'react', attempt: 1 } });
    expect(names.filter((n) => n === 'progress')).toHaveLength(5);
    expect(names.filter((n) => n === 'updates')).toHaveLength(5);
    expect(names).not.toContain('token'); // tokens were not asked for
    expect(names.at(-1)).toBe('result');
    expect(events.at(-1)!.data).toEqual(JSON.parse(JSON.stringify(result)));

    const updates = events.filter((e) => e.event === 'updates').map((e) => e.data as Record<string, { messages?: any[] }>);
    const toolCall = updates
      .flatMap((u) => Object.values(u).flatMap((v) => v?.messages ?? []))
      .find((m) => m.type === 'ai' && m.tool_calls?.length);
    expect(toolCall).toMatchObject({ type: 'ai', tool_calls: [{ name: 'calculator', args: { expression: '2+2' } }] });
    const tuples = events.filter((e) => e.event === 'messages').map((e) => e.data as [any, any]);
    expect(tuples.length).toBeGreaterThan(0);
    expect(tuples[0][0]).toMatchObject({ type: expect.any(String), content: expect.anything() });
    expect(tuples[0][1]).toMatchObject({ langgraph_node: expect.any(String) });
    const ids = events.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });
});
