import path from 'node:path';

import { type AgentCard, type Message, Role, type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { Client as LgClient } from '@langchain/langgraph-sdk';
import { Client as PgClient } from 'pg';

import { systemAssistantId } from '../../src/langgraph-api/assistants/assistants.service';
import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { waitFor } from '../support/test-app';
import { newKey, TokenIssuer } from '../support/token-issuer';

const T1 = 'tenant-one-key-0123456789';
const T2 = 'tenant-two-key-0123456789';
const FIXTURES = path.join(__dirname, '..', 'fixtures', 'graphs');

type Headers_ = Record<string, string>;

/** fetch with the caller's credentials on every request (the card's and the JSON-RPC calls alike) */
function fetchWith(headers: Headers_): typeof fetch {
  return (input, init) => {
    const h = new Headers(init?.headers);
    for (const [k, v] of Object.entries(headers)) h.set(k, v);
    return fetch(input, { ...init, headers: h });
  };
}

function userMessage(text: string, more: Partial<Message> = {}, data?: Record<string, unknown>): Message {
  const parts: Message['parts'] = [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }];
  if (data) parts.push({ content: { $case: 'data', value: data }, metadata: undefined, filename: '', mediaType: 'application/json' });
  return {
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: text ? parts : parts.slice(1),
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...more,
  };
}

const send = (message: Message) => ({ tenant: '', message, configuration: undefined, metadata: undefined });

function textOfArtifacts(task: Task): string {
  return task.artifacts
    .flatMap((a) => a.parts)
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .join('');
}

function asTask(result: unknown): Task {
  expect(result).toHaveProperty('status');
  return result as Task;
}

async function collect(it: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const e of it) out.push(e);
  return out;
}

/** Every assistant as an A2A agent, driven by the SDK's own client (A2A 1.0, and 0.3 through its compat layer). */
describe('the assistants as A2A agents (/a2a)', () => {
  const issuer = new TokenIssuer();
  beforeAll(async () => {
    await issuer.start();
    issuer.published = [await newKey('k1')];
  });
  afterAll(() => issuer.stop());
  const svc = useService('a2a_server', {
    env: () => ({
      ...SCRIPTED_LLM,
      API_KEYS: `t1:${T1},t2:${T2}`,
      AUTH_ISSUER: issuer.url,
      AUTH_AUDIENCE: issuer.audience,
      LANGGRAPH_CONFIG: path.join(FIXTURES, 'langgraph.runs.json'),
      TOOL_APPROVAL: 'calculator',
      TRUSTED_PROXIES: 'loopback',
    }),
    model: { resetEach: true },
  });
  const userOf = async (sub: string): Promise<Headers_> => ({
    authorization: `Bearer ${await issuer.sign({ tenant_id: 't1', sub, scope: 'read write' })}`,
  });

  async function clientFor(assistant: string, headers: Headers_, legacy = false): Promise<Client> {
    const fetchImpl = fetchWith(headers);
    const transports = [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: legacy } })];
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports,
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      }),
    );
    if (!legacy) return factory.createFromUrl(`${svc.url}/a2a/${assistant}/`);
    const card = await new DefaultAgentCardResolver({ fetchImpl }).resolve(`${svc.url}/a2a/${assistant}/`);
    // only the card's 0.3 interface: the client speaks A2A 0.3 (`message/send`, `tasks/get`, …) to the server
    return factory.createFromAgentCard({
      ...card,
      supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolVersion === '0.3'),
    });
  }

  const rpc = async (assistant: string, body: string, headers: Headers_ = { 'x-api-key': T1 }) => {
    const res = await fetch(`${svc.url}/a2a/${assistant}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
  };

  it('serves a card for built-in agents and langgraph.json graphs, with the URL and credentials the client used', async () => {
    const res = await fetch(`${svc.url}/.well-known/agent-card.json?assistant_id=react`, {
      headers: {
        'x-api-key': T1,
        'a2a-version': '1.0',
        'x-forwarded-host': 'agents.example.com',
        'x-forwarded-proto': 'https',
        'x-forwarded-prefix': '/edge',
      },
    });
    expect(res.status).toBe(200);
    const card = (await res.json()) as Record<string, any>;
    expect(card).toMatchObject({
      name: 'react',
      capabilities: { streaming: true, pushNotifications: false },
      defaultInputModes: ['text/plain', 'application/json'],
      skills: [expect.objectContaining({ id: 'react', inputModes: ['text/plain', 'application/json'] })],
    });
    // behind a trusted proxy (TRUSTED_PROXIES=loopback): the URL the client used, through the proxy
    expect(card.supportedInterfaces).toEqual([
      expect.objectContaining({ url: 'https://agents.example.com/edge/a2a/react', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }),
      expect.objectContaining({ url: 'https://agents.example.com/edge/a2a/react', protocolBinding: 'JSONRPC', protocolVersion: '0.3' }),
    ]);
    const direct = (await (
      await fetch(`${svc.url}/a2a/react/.well-known/agent-card.json`, { headers: { 'x-api-key': T1, 'a2a-version': '1.0' } })
    ).json()) as any;
    expect(direct.supportedInterfaces[0].url).toBe(`${svc.url}/a2a/react`);
    expect(Object.keys(card.securitySchemes).sort()).toEqual(['apiKey', 'bearer']);
    expect(card.securitySchemes.apiKey).toEqual({
      apiKeySecurityScheme: expect.objectContaining({ location: 'header', name: 'x-api-key' }),
    });

    const client = await clientFor('hitl', { 'x-api-key': T1 });
    const sdkCard: AgentCard = await client.getAgentCard();
    expect(sdkCard.name).toBe('hitl');
    expect(sdkCard.skills[0].id).toBe('hitl');
    // read with the assistant's credentials: none → 401; an unknown assistant → 404 JSON
    expect((await fetch(`${svc.url}/a2a/react/.well-known/agent-card.json`)).status).toBe(401);
    const missing = await fetch(`${svc.url}/a2a/nope/.well-known/agent-card.json`, { headers: { 'x-api-key': T1 } });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'ASSISTANT_NOT_FOUND' } });
    const which = await fetch(`${svc.url}/.well-known/agent-card.json`, { headers: { 'x-api-key': T1 } });
    expect(which.status).toBe(400);
    expect(await which.json()).toMatchObject({
      error: { code: 'VALIDATION_FAILED', message: expect.stringMatching(/assistant_id is required/) },
    });
  });

  it('serves a client that only knows A2A 0.3 cards: asked without A2A-Version, the card is 0.3-shaped', async () => {
    const withKey = fetchWith({ 'x-api-key': T1 });
    const res = await withKey(`${svc.url}/a2a/react/.well-known/agent-card.json`);
    expect(res.headers.get('vary')).toMatch(/A2A-Version/i);
    const raw = (await res.json()) as any;
    expect(raw).toMatchObject({
      name: 'react',
      url: `${svc.url}/a2a/react`,
      preferredTransport: 'JSONRPC',
      protocolVersion: '0.3',
      capabilities: { streaming: true, pushNotifications: false },
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' }, bearer: { type: 'http', scheme: 'Bearer' } },
    });
    // a 0.3 client sends no A2A-Version and does not know supportedInterfaces: the SDK then reads the card as 0.3
    const asOldClient: typeof fetch = async (input, init) => {
      const headers = new Headers(init?.headers);
      headers.delete('a2a-version');
      const card = await withKey(input, { ...init, headers });
      if (!String(input).endsWith('agent-card.json')) return card;
      const { supportedInterfaces: _, ...legacyOnly } = (await card.json()) as Record<string, unknown>;
      return new Response(JSON.stringify(legacyOnly), { status: card.status, headers: { 'content-type': 'application/json' } });
    };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl: withKey, legacyCompat: { enabled: true } })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl: asOldClient, legacyCompat: { enabled: true } }),
      }),
    );
    const client = await factory.createFromUrl(`${svc.url}/a2a/react/`);
    expect((await client.getAgentCard()).supportedInterfaces).toEqual([
      expect.objectContaining({ url: `${svc.url}/a2a/react`, protocolVersion: '0.3' }),
    ]);
    svc.model.enqueue({ content: 'Bonjour.' });
    const task = asTask(await client.sendMessage(send(userMessage('Say hello in French.'))));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOfArtifacts(task)).toBe('Bonjour.');
  });

  it.each([false, true])('sends, streams and reads a task (legacy 0.3: %s)', async (legacy) => {
    const client = await clientFor('react', { 'x-api-key': T1 }, legacy);
    svc.model.enqueue({ content: 'Paris is the capital.' });
    const task = asTask(await client.sendMessage(send(userMessage('What is the capital of France?'))));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOfArtifacts(task)).toBe('Paris is the capital.');
    expect(svc.model.requests).toHaveLength(1);

    // the same context: the thread holds both turns
    svc.model.enqueue({ content: 'About two million people.' });
    const events = await collect(client.sendMessageStream(send(userMessage('How many live there?', { contextId: task.contextId }))));
    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe('task');
    expect(kinds.at(-1)).toBe('statusUpdate');
    const last = events.at(-1)!.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const streamed = events
      .flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? e.payload.value.artifact!.parts : []))
      .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
      .join('');
    expect(streamed).toBe('About two million people.');
    // the answer's tokens as they come: appended chunks of one artifact, then its last chunk
    const updates = events.flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? [e.payload.value] : []));
    expect(updates.filter((u) => u.append && !u.lastChunk).length).toBeGreaterThan(1);
    expect(updates.at(-1)?.lastChunk).toBe(true);
    const second = events[0].payload!.value as Task;
    expect(second.contextId).toBe(task.contextId);
    const thread = await new LgClient({ apiUrl: svc.url, apiKey: T1 }).threads.getState<{ messages: Array<{ content: string }> }>(
      task.contextId,
    );
    expect(thread.values.messages.map((m) => m.content)).toEqual([
      'What is the capital of France?',
      'Paris is the capital.',
      'How many live there?',
      'About two million people.',
    ]);

    const read = await client.getTask({ tenant: '', id: second.id });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOfArtifacts(read)).toBe('About two million people.');
    // a finished task is not cancelable
    await expect(client.cancelTask({ tenant: '', id: second.id, metadata: undefined })).rejects.toThrow(/ended|not cancel/i);
  });

  it('asks for input at an interrupt() and resumes with the next message of the task', async () => {
    const client = await clientFor('hitl', { 'x-api-key': T1 });
    const waiting = asTask(await client.sendMessage(send(userMessage('start'))));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const question = waiting.status?.message?.parts.find((p) => p.content?.$case === 'data')?.content;
    expect(question?.$case === 'data' && question.value).toEqual({ interrupts: [{ question: 'proceed?' }] });
    const resumed = asTask(await client.sendMessage(send(userMessage('yes', { taskId: waiting.id, contextId: waiting.contextId }))));
    expect(resumed.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(resumed.contextId).toBe(waiting.contextId);
    expect(textOfArtifacts(resumed)).toBe('answer was yes');
    // a message to the ended task is refused; the context goes on with contextId alone (a new interrupt, resumed so)
    await expect(client.sendMessage(send(userMessage('again', { taskId: resumed.id })))).rejects.toThrow(UnsupportedOperationError);
    const again = asTask(await client.sendMessage(send(userMessage('once more', { contextId: waiting.contextId }))));
    expect(again.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const byContext = asTask(await client.sendMessage(send(userMessage('', { contextId: waiting.contextId }, { choice: 'no' }))));
    expect(byContext.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // the data part is the value interrupt() returned
    const state = await new LgClient({ apiUrl: svc.url, apiKey: T1 }).threads.getState<{ answer: unknown }>(waiting.contextId);
    expect(state.values.answer).toEqual({ choice: 'no' });

    const listed = await client.listTasks({
      tenant: '',
      contextId: waiting.contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: undefined,
      pageSize: 1,
    });
    expect(listed.tasks.map((t) => t.id)).toEqual([byContext.id]);
    expect(listed.totalSize).toBe(4);
    const next = await client.listTasks({
      tenant: '',
      contextId: '',
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: listed.nextPageToken,
      statusTimestampAfter: undefined,
      pageSize: 1,
    });
    expect(next.tasks.map((t) => t.id)).toEqual([again.id]);
    const completed = await client.listTasks({
      tenant: '',
      contextId: waiting.contextId,
      status: TaskState.TASK_STATE_COMPLETED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(completed.tasks.map((t) => t.id)).toEqual([byContext.id, resumed.id]);
    const asking = await client.listTasks({
      tenant: '',
      contextId: waiting.contextId,
      status: TaskState.TASK_STATE_INPUT_REQUIRED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(asking.tasks.map((t) => t.id)).toEqual([again.id, waiting.id]);
    const since = await client.listTasks({
      tenant: '',
      contextId: waiting.contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: again.status!.timestamp,
    });
    expect(since.tasks.map((t) => t.id)).toEqual([byContext.id]);
  });

  it('asks for a decision on a tool call that needs approval, in the user’s language, and goes on once it is given', async () => {
    const client = await clientFor('react', { 'x-api-key': T1 });
    svc.model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '6 * 7' } }] }, { content: '6 times 7 is 42.' });
    const waiting = asTask(await client.sendMessage(send(userMessage('6 곱하기 7은 얼마인가요?'))));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const parts = waiting.status?.message?.parts ?? [];
    const said = parts[0]?.content;
    expect(said?.$case === 'text' && said.value).toMatch(/calculator.*승인/);
    const asked = parts[1]?.content;
    expect(asked?.$case === 'data' && asked.value).toEqual({ approval: { tool: 'calculator', args: { expression: '6 * 7' } } });
    expect(svc.model.requests).toHaveLength(1);
    // words are no decision: the task still waits, nothing ran
    await expect(client.sendMessage(send(userMessage('승인', { taskId: waiting.id })))).rejects.toThrow(/approve/);
    expect((await client.getTask({ tenant: '', id: waiting.id })).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const decided = asTask(await client.sendMessage(send(userMessage('', { taskId: waiting.id }, { approve: true }))));
    expect(decided.id).toBe(waiting.id);
    // the same task, awaited to its end: the call ran once approved
    expect(decided.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOfArtifacts(decided)).toBe('6 times 7 is 42.');
    expect(svc.model.requests).toHaveLength(2);
  });

  it('cancels a long run; a client that goes away mid-stream leaves its run to finish', async () => {
    const client = await clientFor('slow', { 'x-api-key': T1 });
    const long = asTask(
      await client.sendMessage({ ...send(userMessage('', {}, { ms: 400 })), configuration: { returnImmediately: true } as never }),
    );
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(long.status?.state);
    const cancelled = await client.cancelTask({ tenant: '', id: long.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);

    const gone = new AbortController();
    const stream = client.sendMessageStream(send(userMessage('', {}, { ms: 150 })), { signal: gone.signal });
    const first = (await stream.next()).value as StreamResponse;
    const task = first.payload!.value as Task;
    gone.abort();
    await stream.return(undefined).catch(() => undefined);
    // gone while its run is still in flight (ten steps of 150 ms)
    expect((await client.getTask({ tenant: '', id: task.id })).status?.state).not.toBe(TaskState.TASK_STATE_COMPLETED);
    const done = await waitFor(async () => {
      const t = await client.getTask({ tenant: '', id: task.id });
      return t.status?.state === TaskState.TASK_STATE_COMPLETED ? t : undefined;
    }, 20_000);
    expect(done.id).toBe(task.id);
    // following it again (SubscribeToTask) ends with its final status
    const again = await collect(client.resubscribeTask({ tenant: '', id: task.id }));
    const final = again.at(-1)?.payload;
    expect(final?.$case === 'statusUpdate' && final.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("refuses another tenant's and another user's task and context, and writes nothing to them", async () => {
    const alice = await userOf('alice');
    const mine = await clientFor('hitl', alice);
    const waiting = asTask(await mine.sendMessage(send(userMessage('start'))));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const db = new PgClient({ connectionString: svc.db.url });
    await db.connect();
    const runsOf = async () =>
      (await db.query(`SELECT count(*)::int AS n FROM runs WHERE tenant_id = 't1' AND session_id = $1`, [waiting.contextId])).rows[0].n;
    try {
      const before = await runsOf();
      for (const headers of [await userOf('bob'), { 'x-api-key': T2 }]) {
        const other = await clientFor('hitl', headers);
        await expect(other.getTask({ tenant: '', id: waiting.id })).rejects.toThrow(TaskNotFoundError);
        await expect(other.cancelTask({ tenant: '', id: waiting.id, metadata: undefined })).rejects.toThrow(TaskNotFoundError);
        await expect(other.sendMessage(send(userMessage('yes', { taskId: waiting.id, contextId: waiting.contextId })))).rejects.toThrow(
          TaskNotFoundError,
        );
        const intoContext = other.sendMessage(send(userMessage('hijack', { contextId: waiting.contextId })));
        // another tenant's caller starts its own context of that id (ids are per tenant); another user is refused
        if ('authorization' in headers) await expect(intoContext).rejects.toThrow(TaskNotFoundError);
        else await intoContext.catch(() => undefined);
        const listed = await other.listTasks({
          tenant: '',
          contextId: '',
          status: TaskState.TASK_STATE_UNSPECIFIED,
          pageToken: '',
          statusTimestampAfter: undefined,
        });
        expect(listed.tasks.map((t) => t.id)).not.toContain(waiting.id);
      }
      expect(await runsOf()).toBe(before);
      const state = await mine.getTask({ tenant: '', id: waiting.id });
      expect(state.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    } finally {
      await db.end();
    }
  });

  it('streams A2A 0.3 to a client that sends no A2A-Version: its last status update is final', async () => {
    svc.model.enqueue({ content: 'Short answer.' });
    const res = await fetch(`${svc.url}/a2a/react`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': T1 },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'r1',
        method: 'message/stream',
        params: { message: { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } },
      }),
    });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const results = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)).result);
    expect(results[0]).toMatchObject({ kind: 'task', status: { state: 'submitted' } });
    expect(results.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    const text = results
      .filter((r) => r.kind === 'artifact-update')
      .flatMap((r) => r.artifact.parts)
      .map((p: { text?: string }) => p.text ?? '')
      .join('');
    expect(text).toBe('Short answer.');
  });

  it('answers broken bodies, unknown methods and push notifications with JSON-RPC errors, never a 500', async () => {
    const parse = await rpc('react', '{"jsonrpc": "2.0", ');
    expect(parse.status).toBe(200);
    expect(JSON.parse(parse.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    const notRpc = await rpc('react', JSON.stringify({ hello: 'world' }));
    expect(JSON.parse(notRpc.text)).toMatchObject({ error: { code: -32600 } });
    const badParams = await rpc('react', JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'SendMessage', params: [1] }), {
      'x-api-key': T1,
      'A2A-Version': '1.0',
    });
    expect(JSON.parse(badParams.text)).toMatchObject({ id: 3, error: { code: -32602 } });
    const noParts = await rpc(
      'react',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 4,
        method: 'message/send',
        params: { message: { messageId: 'x', role: 'user', parts: [], kind: 'message' } },
      }),
    );
    expect(JSON.parse(noParts.text)).toMatchObject({ id: 4, error: { code: -32602 } });
    const unknownTask = await rpc(
      'react',
      JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tasks/get', params: { id: '00000000-0000-4000-8000-000000000000' } }),
    );
    expect(JSON.parse(unknownTask.text)).toMatchObject({ id: 5, error: { code: -32001 } });
    const push = await rpc(
      'react',
      JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'CreateTaskPushNotificationConfig', params: { taskId: 't', url: 'https://x' } }),
      { 'x-api-key': T1, 'A2A-Version': '1.0' },
    );
    expect(JSON.parse(push.text)).toMatchObject({ id: 6, error: { code: -32003 } });
    const method = await rpc('react', JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'Nope', params: {} }), {
      'x-api-key': T1,
      'A2A-Version': '1.0',
    });
    expect(JSON.parse(method.text)).toMatchObject({ id: 7, error: { code: -32601 } });
    const version = await rpc('react', JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'GetTask', params: { id: 'x' } }), {
      'x-api-key': T1,
      'A2A-Version': '2.0',
    });
    expect(JSON.parse(version.text)).toMatchObject({ id: 9, error: { code: -32009 } });
    const file = await rpc(
      'react',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 10,
        method: 'SendMessage',
        params: {
          message: { messageId: 'f', role: 'ROLE_USER', parts: [{ url: 'https://example.com/a.pdf', mediaType: 'application/pdf' }] },
        },
      }),
      { 'x-api-key': T1, 'A2A-Version': '1.0' },
    );
    expect(JSON.parse(file.text)).toMatchObject({ id: 10, error: { code: -32005 } });
    const unknownAgent = await rpc('nope', JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tasks/get', params: { id: 'x' } }));
    expect(unknownAgent.status).toBe(404);
    expect(JSON.parse(unknownAgent.text)).toMatchObject({ jsonrpc: '2.0', error: { data: { code: 'ASSISTANT_NOT_FOUND' } } });
    for (const r of [parse, notRpc, badParams, noParts, unknownTask, push, method, version, file, unknownAgent])
      expect(r.text).not.toMatch(/at .*\.(ts|js):\d+/);
    expect(svc.model.requests).toHaveLength(0);
  });

  it('names a built-in agent by its assistant id too', async () => {
    const client = await clientFor(systemAssistantId('react'), { 'x-api-key': T2 });
    svc.model.enqueue({ content: 'hello from t2' });
    const task = asTask(await client.sendMessage(send(userMessage('hi'))));
    expect(textOfArtifacts(task)).toBe('hello from t2');
  });
});
