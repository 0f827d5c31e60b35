import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { createTestDatabase, TEST_REDIS_URL, type TestDatabase, uniqueQueuePrefix } from '../support/infra';
import { ScriptedModelServer } from '../support/model-server';
import { http, type RunningApp, startApp, waitFor } from '../support/test-app';

const FIXTURES = path.resolve(__dirname, '../fixtures/graphs');

/**
 * Graphs of a LangGraph CLI `langgraph.json` (TypeScript, an ES module, a factory, a model call through
 * @langchain/openai) served as agents: the same REST API, checkpointer, BullMQ queue and catalogue as the
 * built-in ones; a configuration that cannot load stops the start-up with the reason.
 */
describe('custom graphs from langgraph.json', () => {
  const model = new ScriptedModelServer();
  let db: TestDatabase;
  let svc: RunningApp;
  const savedBaseUrl = process.env.CHAT_GRAPH_BASE_URL;

  beforeAll(async () => {
    // already set, so langgraph.json's own CHAT_GRAPH_BASE_URL does not override it; CHAT_GRAPH_MODEL comes from its `env`
    process.env.CHAT_GRAPH_BASE_URL = await model.start();
    db = await createTestDatabase('custom_graphs');
    svc = await startApp({
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: uniqueQueuePrefix('custom_graphs'),
      LANGGRAPH_CONFIG: path.join(FIXTURES, 'langgraph.json'),
    });
  });

  afterAll(async () => {
    await svc?.close();
    await model.stop();
    await db?.drop();
    if (savedBaseUrl === undefined) delete process.env.CHAT_GRAPH_BASE_URL;
    else process.env.CHAT_GRAPH_BASE_URL = savedBaseUrl;
  });

  const chat = (body: Record<string, unknown>) => http(svc.url, 'POST', '/v1/chat', body);

  it('lists the custom graphs beside the built-in agents', async () => {
    const res = await http(svc.url, 'GET', '/v1/agents');
    expect(res.status).toBe(200);
    const names = res.body.agents.map((a: { name: string }) => a.name);
    expect(names).toEqual(expect.arrayContaining(['react', 'assistant', 'echo', 'counter', 'greeter', 'chat']));
    expect(res.body.agents.find((a: { name: string }) => a.name === 'echo').description).toMatch(/\.\/echo\.ts:graph/);
  });

  it('answers a turn of a TypeScript StateGraph and continues the conversation from its checkpoint', async () => {
    const first = await chat({ agent: 'echo', message: 'hello' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ response: 'echo #1: hello', agent: 'echo', error: null, llm_calls: 0 });
    const second = await chat({ agent: 'echo', message: 'and again', session_id: first.body.session_id });
    expect(second.body).toMatchObject({ response: 'echo #2: and again', session_id: first.body.session_id });
    const session = await http(svc.url, 'GET', `/v1/sessions/${first.body.session_id}`);
    expect(session.body.messages.map((m: { content: string }) => m.content)).toEqual([
      'hello',
      'echo #1: hello',
      'and again',
      'echo #2: and again',
    ]);
  });

  it('keeps a non-messages state across turns (the counter increments) and answers with it as JSON', async () => {
    const first = await chat({ agent: 'counter', message: 'tick' });
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body.response)).toEqual({ count: 1, by: 'counter.mts' });
    const second = await chat({ agent: 'counter', message: 'tick', session_id: first.body.session_id });
    expect(JSON.parse(second.body.response)).toEqual({ count: 2, by: 'counter.mts' });
  });

  it('builds a factory export per run (an ES module)', async () => {
    const res = await chat({ agent: 'greeter', message: 'hi' });
    expect(res.body).toMatchObject({ response: 'hello from a factory (1 messages so far)', error: null });
  });

  it('calls a model with @langchain/openai configured by the env of langgraph.json', async () => {
    model.enqueue({ content: 'The scripted model says hi.' });
    const res = await chat({ agent: 'chat', message: 'Say hi' });
    expect(res.body).toMatchObject({ response: 'The scripted model says hi.', error: null });
    expect(model.requests[0].model).toBe('fixture-model');
    expect(model.requests[0].messages).toEqual([{ role: 'user', content: 'Say hi' }]);
  });

  it('runs queued jobs of a custom graph on the BullMQ worker', async () => {
    const sub = await http(svc.url, 'POST', '/v1/jobs', { agent: 'counter', message: 'tick' });
    expect(sub.status).toBe(202);
    const done = async (id: string) =>
      waitFor(async () => {
        const r = await http(svc.url, 'GET', `/v1/jobs/${id}`);
        return ['completed', 'failed', 'cancelled'].includes(r.body.status) ? r.body : undefined;
      });
    const job = await done(sub.body.job_id);
    expect(job.status).toBe('completed');
    expect(JSON.parse(job.result.response)).toEqual({ count: 1, by: 'counter.mts' });
    const next = await http(svc.url, 'POST', '/v1/jobs', { agent: 'counter', message: 'tick', session_id: sub.body.session_id });
    expect(JSON.parse((await done(next.body.job_id)).result.response).count).toBe(2);
  });
});

describe('langgraph.json that cannot load', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('custom_graphs_bad');
  });

  afterAll(async () => {
    await db?.drop();
  });

  function configFile(graphs: Record<string, string>): string {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'langgraph-bad-')), 'langgraph.json');
    writeFileSync(file, JSON.stringify({ graphs }));
    return file;
  }

  const start = (config: string) => startApp({ DATABASE_URL: db.url, LANGGRAPH_CONFIG: config });
  const echo = path.join(FIXTURES, 'echo.ts');

  it('stops the start-up on a missing file, naming the graph, file and export', async () => {
    await expect(start(configFile({ gone: './missing.ts:graph' }))).rejects.toThrow(
      /Cannot load graph "gone" \(.*missing\.ts, export "graph"\).*ENOENT/,
    );
  });

  it('stops the start-up on a missing export', async () => {
    await expect(start(configFile({ echo: `${echo}:nope` }))).rejects.toThrow(/no export "nope" \(its exports: graph, respond\)/);
  });

  it('stops the start-up when a graph takes a built-in agent’s name', async () => {
    await expect(start(configFile({ react: `${echo}:graph` }))).rejects.toThrow(/graph "react" has the name of a built-in agent/);
  });

  it('stops the start-up when LANGGRAPH_CONFIG names no file', async () => {
    await expect(start('/nonexistent/langgraph.json')).rejects.toThrow(/LANGGRAPH_CONFIG \/nonexistent\/langgraph\.json/);
  });
});
