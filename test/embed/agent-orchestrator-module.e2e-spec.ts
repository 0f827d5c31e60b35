import path from 'node:path';

import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { Controller, Get, type INestApplication, Injectable, Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { z } from 'zod';

import { AgentRegistry } from '../../src/agents/agent-registry.service';
import { AgentOrchestrator, AgentOrchestratorModule, type HostAgentContext, OrchestratorAgent, OrchestratorTool } from '../../src/index';
import { BullRunQueue } from '../../src/runs/bull-run-queue';
import { RunQueue } from '../../src/runs/run-queue';
import { ToolRegistry } from '../../src/tools/tool-registry.service';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase, uniqueQueuePrefix } from '../support/infra';
import { http } from '../support/test-app';

/** The host's own settings and services, injected into the module's factory, its agent and its tool. */
@Injectable()
class HostSettings {
  databaseUrl = '';
  readonly greeting = 'Grüezi';
}

@Module({ providers: [HostSettings], exports: [HostSettings] })
class HostSettingsModule {}

@Injectable()
class GreetingTools {
  constructor(private readonly settings: HostSettings) {}

  @OrchestratorTool({ name: 'greet', description: 'Greets someone by name', schema: z.object({ name: z.string() }) })
  greet({ name }: { name: string }): string {
    return `${this.settings.greeting}, ${name}!`;
  }
}

/** Calls the tools it was given (no model needed) and answers with their outputs. */
function toolCallingGraph(ctx: HostAgentContext) {
  return new StateGraph(MessagesAnnotation)
    .addNode('call_tools', async (state, config) => {
      const name = String(state.messages.at(-1)?.content);
      // the run's config carries the service's tool guard and budgets: tools are invoked with it
      const outputs = await Promise.all(ctx.tools.map((t) => t.invoke({ name }, config)));
      return { messages: [new AIMessage(outputs.join(' '))] };
    })
    .addEdge('__start__', 'call_tools');
}

@OrchestratorAgent({ name: 'greeter', description: 'Greets', tools: ['greet', 'shout', 'no_such_tool'] })
@Injectable()
class GreeterAgent {
  graph = toolCallingGraph;
}

const shout = tool(async ({ name }: { name: string }) => name.toUpperCase(), {
  name: 'shout',
  description: 'Shouts a name',
  schema: z.object({ name: z.string() }),
});

@Module({
  imports: [
    AgentOrchestratorModule.forRootAsync({
      imports: [HostSettingsModule],
      inject: [HostSettings],
      useFactory: (s: HostSettings) => ({
        database: { url: s.databaseUrl },
        builtInAgents: ['assistant'],
        tools: [shout],
        agents: [{ name: 'counter', description: 'Counts turns', graph: countingGraph }],
        settings: { LOG_LEVEL: 'error' },
      }),
    }),
    HostSettingsModule,
  ],
  providers: [GreetingTools, GreeterAgent],
})
class HostModule {}

/** An agent given in the options: a compiled graph whose state lives in the service's checkpointer. */
function countingGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode('count', (s) => ({ messages: [new AIMessage(`turn ${s.messages.filter((m) => HumanMessage.isInstance(m)).length}`)] }))
    .addEdge('__start__', 'count');
}

/**
 * `AgentOrchestratorModule.forRootAsync` inside a host module: options from an injected host provider,
 * agents and tools from the options and from decorated providers (discovery), the built-in agents filtered,
 * no HTTP; turns through the in-process `AgentOrchestrator` (sync, queued, results by session, tenancy).
 */
describe('AgentOrchestratorModule.forRootAsync in a host module', () => {
  let db: TestDatabase;
  let app: TestingModule;
  let orchestrator: AgentOrchestrator;

  beforeAll(async () => {
    db = await createTestDatabase('embed_module');
    app = await Test.createTestingModule({ imports: [HostModule] })
      .overrideProvider(HostSettings)
      .useValue(Object.assign(new HostSettings(), { databaseUrl: db.url }))
      .compile();
    await app.init();
    orchestrator = app.get(AgentOrchestrator);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('registers host agents beside the enabled built-in ones, and host tools beside the built-in tools', () => {
    expect(app.get(AgentRegistry).names().sort()).toEqual(['assistant', 'counter', 'greeter']);
    const tools = app
      .get(ToolRegistry)
      .list()
      .map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['greet', 'shout', 'calculator']));
  });

  it('runs a decorated agent with its decorated tool (injected dependency) and an options tool', async () => {
    const result = await orchestrator.chat({ message: 'Ada', agent: 'greeter' });
    expect(result).toMatchObject({ agent: 'greeter', error: null });
    // host tools go through the same tool guard as the built-in ones: their output comes back marked as data
    expect(result.response).toMatch(/source="tool greet">>>\n.*\nGrüezi, Ada!\n<<<END_UNTRUSTED_DATA/);
    expect(result.response).toMatch(/source="tool shout">>>\n.*\nADA\n<<<END_UNTRUSTED_DATA/);
    expect(await orchestrator.getResult(result.session_id)).toMatchObject({ run_id: result.run_id, response: result.response });
  });

  it('continues a conversation from the checkpointer, queued or not', async () => {
    const first = await orchestrator.chat({ message: 'one', agent: 'counter' });
    const job = await orchestrator.enqueue({ message: 'two', agent: 'counter', sessionId: first.session_id });
    expect(job).toMatchObject({ sessionId: first.session_id, status: 'queued' });
    const done = await orchestrator.waitForJob(job.jobId);
    expect(done).toMatchObject({ status: 'completed', result: { response: 'turn 2' } });
    expect(await orchestrator.getResult(first.session_id)).toMatchObject({ response: 'turn 2' });
  });

  it('keeps tenants apart and refuses agents that are not registered', async () => {
    const job = await orchestrator.enqueue({ message: 'x', agent: 'counter', tenantId: 'acme' });
    await expect(orchestrator.getJob(job.jobId, 'other')).rejects.toMatchObject({ code: 'JOB_NOT_FOUND', status: 404 });
    await expect(orchestrator.waitForJob(job.jobId, 'acme')).resolves.toMatchObject({ status: 'completed' });
    await expect(orchestrator.getResult(job.sessionId, 'other')).resolves.toBeNull();
    await expect(orchestrator.chat({ message: 'hi', agent: 'react' })).rejects.toMatchObject({ code: 'UNKNOWN_AGENT' });
  });
});

/** `forRoot` with Redis: queued turns of a host agent go through BullMQ and this process's worker. */
describe('AgentOrchestratorModule.forRoot with a Redis queue', () => {
  let db: TestDatabase;
  let app: TestingModule;

  beforeAll(async () => {
    db = await createTestDatabase('embed_module_redis');
    app = await Test.createTestingModule({
      imports: [
        AgentOrchestratorModule.forRoot({
          database: { url: db.url },
          redis: TEST_REDIS_URL,
          builtInAgents: [],
          defaultAgent: 'counter',
          agents: [{ name: 'counter', description: 'Counts turns', graph: countingGraph }],
          settings: { LOG_LEVEL: 'error', QUEUE_PREFIX: uniqueQueuePrefix('embed_module') },
        }),
      ],
    }).compile();
    await app.init();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('runs queued turns through BullMQ', async () => {
    const orchestrator = app.get(AgentOrchestrator);
    expect(app.get(RunQueue)).toBeInstanceOf(BullRunQueue);
    const job = await orchestrator.enqueue({ message: 'one' });
    await expect(orchestrator.waitForJob(job.jobId)).resolves.toMatchObject({
      status: 'completed',
      agent: 'counter',
      result: { response: 'turn 1' },
    });
    const next = await orchestrator.enqueue({ message: 'two', sessionId: job.sessionId });
    await expect(orchestrator.waitForJob(next.jobId)).resolves.toMatchObject({ status: 'completed', result: { response: 'turn 2' } });
  });
});

@Controller('host')
class HostPingController {
  @Get('ping')
  ping() {
    return { pong: true };
  }
}

/** `http: { prefix }`: the service's API under the prefix with its keys and error format; the host's routes untouched. */
describe('AgentOrchestratorModule with its HTTP API mounted in a host app', () => {
  const KEY = 'acme-key-0123456789';
  let db: TestDatabase;
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    db = await createTestDatabase('embed_module_http');
    const moduleRef = await Test.createTestingModule({
      imports: [
        AgentOrchestratorModule.forRoot({
          database: { url: db.url },
          builtInAgents: ['react'],
          http: { prefix: 'svc' },
          settings: { LOG_LEVEL: 'error', API_KEYS: `acme:${KEY}` },
        }),
      ],
      controllers: [HostPingController],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    url = await app.getUrl();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('asks for a key on the service routes only', async () => {
    const noKey = await http(url, 'GET', '/svc/v1/agents');
    expect(noKey.status).toBe(401);
    expect(noKey.body).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    const withKey = await fetch(`${url}/svc/v1/agents`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(withKey.status).toBe(200);
    expect(await withKey.json()).toEqual({ agents: [expect.objectContaining({ name: 'react' })] });
    await expect(http(url, 'GET', '/host/ping')).resolves.toMatchObject({ status: 200, body: { pong: true } });
  });

  it('validates bodies on the service routes with its error format', async () => {
    const res = await fetch(`${url}/svc/v1/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hi', unexpected: 1 }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
  });
});

describe("AgentOrchestratorModule's HTTP API with langgraph.json custom auth", () => {
  const TEAM_AUTH = path.join(__dirname, '..', 'fixtures', 'graphs', 'team-auth', 'langgraph.json');
  let db: TestDatabase;
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    db = await createTestDatabase('embed_module_custom_auth');
    const moduleRef = await Test.createTestingModule({
      imports: [
        AgentOrchestratorModule.forRoot({
          database: { url: db.url },
          builtInAgents: ['react'],
          http: { prefix: 'lg' },
          settings: { LOG_LEVEL: 'error', LANGGRAPH_CONFIG: TEAM_AUTH },
        }),
      ],
      controllers: [HostPingController],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    url = await app.getUrl();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  const as = (user: string | null, method: string, route: string, body?: unknown) =>
    fetch(`${url}${route}`, {
      method,
      headers: { 'content-type': 'application/json', ...(user ? { authorization: `Bearer ${user}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it("runs the module's authenticate and its handlers' filters under the host's prefix, on the LangGraph API and v1", async () => {
    const refused = await as(null, 'GET', '/lg/threads/00000000-0000-4000-8000-000000000000');
    expect([refused.status, await refused.text()]).toEqual([401, 'who are you?']);
    expect((await as('ann', 'GET', '/lg/v1/agents')).status).toBe(200);

    const created = await as('ann', 'POST', '/lg/threads', {});
    const thread = (await created.json()) as { thread_id: string; metadata: Record<string, unknown> };
    expect(thread.metadata).toMatchObject({ team: 'red' });
    expect((await as('al', 'GET', `/lg/threads/${thread.thread_id}`)).status).toBe(200); // same team
    expect((await as('ben', 'GET', `/lg/threads/${thread.thread_id}`)).status).toBe(404); // another team
    // the paths the platform leaves open stay open; the host's own routes are not the module's
    expect((await as(null, 'GET', '/lg/info')).status).toBe(200);
    expect((await as(null, 'GET', '/host/ping')).status).toBe(200);
  });
});
