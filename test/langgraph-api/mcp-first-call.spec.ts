import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { waitFor } from '../support/test-app';

const KEY = 'mcp-first-call-key-0123456789';
/** graphs whose schemas only a parse of their TypeScript source gives (`Annotation` states) */
const CONFIG = path.join(__dirname, '..', 'fixtures', 'graphs', 'langgraph.json');
/** the bound on the first `tools/list` after start (a schema parse takes 4 s on a quiet machine, 15–40 s under load) */
const FIRST_CALL_BOUND_MS = 2000;

/**
 * `/mcp` answers at once after start: it waits for a graph's schema parse only briefly (McpController's
 * MCP_SCHEMA_WAIT_MS), then lists the tool with the schema its state channels show while the parse goes on.
 */
describe('/mcp: the first tools/list after start', () => {
  const svc = useService('mcp_first_call', { env: { ...SCRIPTED_LLM, API_KEYS: `t1:${KEY}`, LANGGRAPH_CONFIG: CONFIG } });
  const clients: Client[] = [];
  afterAll(() => Promise.all(clients.map((c) => c.close())));

  async function listTools() {
    const client = new Client({ name: 'mcp-first-call', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { requestInit: { headers: { 'x-api-key': KEY } } }));
    clients.push(client);
    return (await client.listTools()).tools;
  }

  it(`answers within ${FIRST_CALL_BOUND_MS} ms with every graph a tool, then with the parsed schemas`, async () => {
    const started = performance.now();
    const first = await listTools();
    const elapsed = performance.now() - started;
    expect(first.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'counter', 'greeter', 'chat', 'react']));
    for (const tool of first) expect(tool.inputSchema).toMatchObject({ type: 'object' });
    expect(elapsed).toBeLessThan(FIRST_CALL_BOUND_MS);
    console.log(`/mcp: first tools/list after start answered in ${Math.round(elapsed)} ms (${first.length} tools)`);

    // the parses went on in the background (one module at a time): a later list carries a schema a source's types give
    const shown = (tools: typeof first) => new Map(tools.map((t) => [t.name, JSON.stringify(t.inputSchema)]));
    const before = shown(first);
    const changed = await waitFor(
      async () => [...shown(await listTools())].find(([name, schema]) => before.get(name) !== schema),
      150_000,
      1000,
    );
    expect(['echo', 'counter', 'greeter']).toContain(changed[0]);
    expect(JSON.parse(changed[1])).toMatchObject({ type: 'object' });
  }, 180_000);
});
