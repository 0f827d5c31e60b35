import { buildOnce } from '../support/build-once';
import { createTestDatabase, type TestDatabase } from '../support/infra';
import { freePort, type LogLine, MainProcess } from '../support/main-process';
import { type ChatRequest, ScriptedModelServer } from '../support/model-server';
import { SCRIPTED_LLM } from '../support/service-fixture';
import { http, waitFor } from '../support/test-app';

/**
 * Two of our own services talking A2A across processes: `peer` (the shipped `node dist/main.js`, with an API key)
 * exposes its assistants as A2A agents; `front` (another `node dist/main.js`, its own database and model) names
 * the peer's `react` assistant in A2A_AGENTS and calls it — as the react agent's tool and as a supervisor
 * sub-agent. Each side has its own scripted model, so what reaches the peer's model is what `front` sent over A2A.
 */
const PEER_KEY = 'peer-key-0123456789abcdef';
const ANSWER = 'Contract C-19 renews on 1 March 2027 unless cancelled 60 days before.';
const listening = (l: LogLine) => /^listening on /.test(l.msg ?? '');
const lastUser = (r: ChatRequest) => String(r.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');
const isSupervisor = (r: ChatRequest) => String(r.messages[0]?.content).includes('수퍼바이저');

const peerModel = new ScriptedModelServer();
const frontModel = new ScriptedModelServer();
let peerDb: TestDatabase;
let frontDb: TestDatabase;
let peer: MainProcess;
let front: MainProcess;

beforeAll(async () => {
  buildOnce();
  await Promise.all([peerModel.start(), frontModel.start()]);
  [peerDb, frontDb] = await Promise.all([createTestDatabase('a2a_peer'), createTestDatabase('a2a_front')]);
  peer = new MainProcess(await freePort(), {
    ...SCRIPTED_LLM,
    LLM_BASE_URL: peerModel.baseUrl,
    DATABASE_URL: peerDb.url,
    API_KEYS: `acme:${PEER_KEY}`,
  });
  await peer.waitForLine(listening, 90_000);
  const card = `${peer.url}/a2a/react/.well-known/agent-card.json`;
  front = new MainProcess(await freePort(), {
    ...SCRIPTED_LLM,
    LLM_BASE_URL: frontModel.baseUrl,
    DATABASE_URL: frontDb.url,
    TOOLS_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
    A2A_AGENTS: JSON.stringify({
      peer: { card_url: card, headers: { 'x-api-key': PEER_KEY }, agents: ['react'], supervisor: true },
      // the same card with a wrong key: the peer refuses it, and nothing runs there
      stranger: { card_url: card, headers: { 'x-api-key': 'not-the-peer-key-000000' }, agents: ['react'] },
    }),
  });
  await front.waitForLine(listening, 90_000);
}, 240_000);

afterAll(async () => {
  for (const p of [front, peer]) if (p?.child.exitCode === null) p.child.kill('SIGKILL');
  await Promise.all([peerModel.stop(), frontModel.stop()]);
  await Promise.all([peerDb?.drop(), frontDb?.drop()]);
});

beforeEach(() => {
  peerModel.reset();
  frontModel.reset();
});

/** the peer's threads, as its tenant sees them (LangGraph API), newest first */
async function peerThreads(): Promise<Array<{ thread_id: string; values?: { messages?: Array<{ type: string; content: unknown }> } }>> {
  const res = await fetch(`${peer.url}/threads/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': PEER_KEY },
    body: JSON.stringify({ limit: 50, sort_by: 'created_at', sort_order: 'desc' }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as any;
}

const chat = (body: Record<string, unknown>) => http(front.url, 'POST', '/v1/chat', body);

describe('two services, one calling the other over A2A', () => {
  it("front reads the peer's card (with the peer's key) and reports it ready; a wrong key is refused", async () => {
    const ready = await waitFor(async () => {
      const r = await http(front.url, 'GET', '/health/ready');
      const agents = r.body?.a2a_agents;
      return agents?.peer?.status === 'up' && agents?.stranger?.status === 'down' ? r : undefined;
    }, 30_000);
    expect(ready.body.a2a_agents.peer.card).toMatchObject({ name: expect.any(String), streaming: true });
    expect(ready.body.a2a_agents.stranger.error).toMatch(/401/);
    // the card is the peer's: without the key the peer answers 401
    expect((await fetch(`${peer.url}/a2a/react/.well-known/agent-card.json`)).status).toBe(401);
  });

  it("the react agent asks the peer's react assistant; the peer runs it on a thread of its own and the answer comes back", async () => {
    peerModel.setResponder((req) => (/C-19/.test(lastUser(req)) ? { content: ANSWER } : { content: 'unexpected' }));
    frontModel.enqueue(
      { toolCalls: [{ id: 'call_peer', name: 'a2a__peer', args: { message: 'When does contract C-19 renew?' } }] },
      { content: 'The peer says: C-19 renews on 1 March 2027.' },
    );
    const before = (await peerThreads()).length;
    const res = await chat({ message: 'Ask the peer when C-19 renews.', agent: 'react' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ response: 'The peer says: C-19 renews on 1 March 2027.', error: null });
    expect(res.body.tool_calls).toEqual([{ name: 'a2a__peer', args: { message: 'When does contract C-19 renew?' }, status: 'success' }]);
    // front's model saw the peer's answer, as untrusted data
    const toolMsg = frontModel.requests[1].messages.filter((m) => m.role === 'tool').at(-1);
    expect(String(toolMsg?.content)).toContain(ANSWER);
    expect(String(toolMsg?.content)).toMatch(/^<<<UNTRUSTED_DATA id=[0-9a-f]{12} source="tool a2a__peer">>>/);
    // the peer ran one turn on a new thread of its tenant: front's question, its model's answer
    expect(peerModel.requests.map(lastUser)).toEqual(['When does contract C-19 renew?']);
    const threads = await peerThreads();
    expect(threads).toHaveLength(before + 1);
    const messages = threads[0].values?.messages ?? [];
    expect(messages.map((m) => [m.type, m.content])).toEqual([
      ['human', 'When does contract C-19 renew?'],
      ['ai', ANSWER],
    ]);

    // a follow-up in front's thread continues the same context on the peer (consent: the thread holds remote text)
    peerModel.setResponder((req) => ({ content: `Notice period: 60 days (asked: ${lastUser(req)})` }));
    frontModel.enqueue({ toolCalls: [{ name: 'a2a__peer', args: { message: 'And the notice period?' } }] }, { content: '60 days.' });
    const next = await chat({
      message: 'And the notice period?',
      agent: 'react',
      session_id: res.body.session_id,
      allow_tools: ['a2a__peer'],
    });
    expect(next.body).toMatchObject({ response: '60 days.', error: null });
    const after = await peerThreads();
    expect(after).toHaveLength(before + 1); // the same peer thread
    expect((after[0].values?.messages ?? []).map((m) => m.type)).toEqual(['human', 'ai', 'human', 'ai']);
  });

  it("the supervisor delegates to the peer as a sub-agent and cites its answer; the wrong key's tool runs nothing", async () => {
    peerModel.setResponder(() => ({ content: ANSWER }));
    frontModel.setResponder((req) => {
      if (!isSupervisor(req)) return { content: 'unexpected model loop' };
      const last = String(req.messages.at(-1)?.content);
      if (last.includes(ANSWER)) return { content: `Thought: the peer answered\nFinal Answer: From the peer service: ${ANSWER}` };
      return { content: 'Thought: a contract question for the peer\nDelegate: peer\nTask: When does contract C-19 renew?' };
    });
    const res = await chat({ message: 'When does contract C-19 renew? Ask the peer service.', agent: 'supervisor' });
    expect(res.body.response).toBe(`From the peer service: ${ANSWER}`);
    expect(res.body.tool_calls).toEqual([expect.objectContaining({ name: 'a2a__peer', status: 'success', agent: 'peer' })]);
    expect(frontModel.requests).toHaveLength(2); // route, answer: the peer did the work
    expect(peerModel.requests).toHaveLength(1);

    // the tool with the wrong key: the peer refuses the card, so front never calls it and the peer runs nothing
    frontModel.reset();
    peerModel.reset();
    frontModel.enqueue(
      { toolCalls: [{ name: 'a2a__stranger', args: { message: 'Delete everything' } }] },
      { content: 'Could not reach it.' },
    );
    const refused = await chat({ message: 'Ask the stranger', agent: 'react' });
    expect(refused.body.tool_calls).toEqual([expect.objectContaining({ name: 'a2a__stranger', status: 'error' })]);
    expect(peerModel.requests).toHaveLength(0);
  });
});
