import { Client as LgClient } from '@langchain/langgraph-sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as PgClient } from 'pg';

import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { waitFor } from '../support/test-app';

const T1 = 'tenant-one-key-0123456789';
const T2 = 'tenant-two-key-0123456789';

/** `/mcp`: the assistants as MCP tools, driven by the official MCP client; a call is a run of the service. */
describe('the assistants as an MCP server (/mcp)', () => {
  const svc = useService('mcp_server', { env: { ...SCRIPTED_LLM, API_KEYS: `t1:${T1},t2:${T2}` }, model: { resetEach: true } });
  const clients: Client[] = [];
  afterAll(() => Promise.all(clients.map((c) => c.close())));

  async function connect(key?: string): Promise<Client> {
    const headers: Record<string, string> = key ? { 'x-api-key': key } : {};
    const client = new Client({ name: 'mcp-server-spec', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { requestInit: { headers } }));
    clients.push(client);
    return client;
  }

  it('lists one tool per assistant of the tenant, and refuses a caller without a key', async () => {
    const lg = new LgClient({ apiUrl: svc.url, apiKey: T1, callerOptions: { maxRetries: 0 } });
    await lg.assistants.create({ graphId: 'react', name: 'math helper', description: 'Does arithmetic.' });
    const names = (await (await connect(T1)).listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['react', 'assistant', 'supervisor', 'plan-execute', 'contract-qa', 'math_helper']));
    const other = (await (await connect(T2)).listTools()).tools;
    expect(other.map((t) => t.name)).not.toContain('math_helper'); // tenancy
    const react = other.find((t) => t.name === 'react')!;
    expect(react.inputSchema).toMatchObject({ type: 'object' });
    await expect(connect()).rejects.toThrow(/UNAUTHORIZED/);
  });

  it('runs the assistant for a call: its answer comes back, the run is counted, its temporary thread goes', async () => {
    // a call is a stateless run: its row goes with its temporary thread as soon as it ends, so it is counted, not read
    const completed = async () => {
      const text = await (await fetch(`${svc.url}/metrics`, { headers: { 'x-api-key': T1 } })).text();
      const line = text
        .split('\n')
        .find((l) => l.startsWith('agent_runs_total{') && /agent="react"/.test(l) && /status="completed"/.test(l));
      return Number(line?.split(' ').pop() ?? 0);
    };
    const before = await completed();
    svc.model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '6 * 7' } }] }, { content: '6 times 7 is 42.' });
    const client = await connect(T1);
    const result = await client.callTool({
      name: 'math_helper',
      arguments: { messages: [{ role: 'user', content: 'What is 6 times 7?' }] },
    });
    expect(result).toMatchObject({ content: [{ type: 'text', text: '6 times 7 is 42.' }] });
    expect(result.isError).toBeFalsy();
    expect(svc.model.requests).toHaveLength(2);
    await waitFor(async () => ((await completed()) === before + 1 ? true : undefined));

    const db = new PgClient({ connectionString: svc.db.url });
    await db.connect();
    const left = async () =>
      (await db.query(`SELECT count(*)::int AS n FROM runs WHERE tenant_id = 't1' AND status <> 'completed'`)).rows[0].n;
    try {
      await waitFor(async () =>
        (await db.query(`SELECT count(*)::int AS n FROM sessions WHERE tenant_id = 't1'`)).rows[0].n === 0 ? true : undefined,
      );
      expect(await left()).toBe(0);
    } finally {
      await db.end();
    }
  });

  it('cancels the run when the client goes away mid-call', async () => {
    svc.model.enqueue({ fault: 'hang' });
    const client = await connect(T2);
    const call = client.callTool({ name: 'react', arguments: { messages: [{ role: 'user', content: 'Tell me a long story' }] } });
    call.catch(() => undefined);
    const db = new PgClient({ connectionString: svc.db.url });
    await db.connect();
    try {
      const status = async (): Promise<string | undefined> =>
        (await db.query(`SELECT status FROM runs WHERE tenant_id = 't2' ORDER BY created_at DESC LIMIT 1`)).rows[0]?.status;
      // the run is running (its model call hangs) before the client goes away
      await waitFor(async () => ((await status()) === 'running' ? true : undefined), 10_000);
      await client.close(); // aborts the pending POST: the connection closes
      // the model hangs until the run is cancelled, so the run ends only by cancellation: `cancelled`, or already gone
      // with its temporary thread (a stateless run's thread is deleted as soon as the run has ended and nobody reads it)
      await waitFor(async () => {
        const s = await status();
        return s === 'cancelled' || s === undefined ? true : undefined;
      }, 10_000);
    } finally {
      await db.end();
    }
  });

  it('answers an unknown tool as a tool error, and GET (no sessions) with 405', async () => {
    const result = await (await connect(T1)).callTool({ name: 'nope', arguments: {} });
    expect(result).toMatchObject({ isError: true, content: [{ text: 'unknown tool "nope"' }] });
    const get = await fetch(`${svc.url}/mcp`, { headers: { 'x-api-key': T1, accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
  });
});
