import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { All, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';

import { Tenant } from '../../auth/tenant.guard';
import type { AssistantWire } from '../assistants/assistants.repository';
import { AssistantsService } from '../assistants/assistants.service';
import { LangGraphRunsService } from '../runs/lg-runs.service';
import { RunCreate } from '../runs/run-schemas';
import { assistantTools, MESSAGES_INPUT, runOutputText } from './assistant-tools';

/**
 * How long a tool list waits for a graph's schemas before it lists the tool with the schema its state channels
 * show (a first parse of a graph's TypeScript source takes seconds; an MCP client's first call must not).
 */
const MCP_SCHEMA_WAIT_MS = 250;

/**
 * `/mcp`: the tenant's assistants as MCP tools, over streamable HTTP without sessions (as LangGraph Platform
 * offers them): `tools/list` names one tool per assistant, `tools/call` is a stateless run of it — created and
 * awaited through the LangGraph runs service (`POST /runs/wait`'s path: recorded, budgeted, cancelled when the
 * client goes away). Behind the same API keys and tenancy as the rest of the API.
 */
@Controller()
export class McpController {
  constructor(
    private readonly assistants: AssistantsService,
    private readonly runs: LangGraphRunsService,
  ) {}

  @Post('mcp')
  async handle(@Tenant() tenantId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const server = this.serverFor(tenantId, res);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }

  /** Stateless: no session to open a stream on (GET) or to end (DELETE). */
  @All('mcp')
  @HttpCode(405)
  other() {
    return {
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless (POST only).' },
      id: null,
    };
  }

  private serverFor(tenantId: string, res: Response): Server {
    const server = new Server({ name: 'agent-orchestrator', version: '1' }, { capabilities: { tools: {} } });
    const tools = () => this.toolsOf(tenantId);
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await tools()).map((t) => t.tool) }));
    server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
      const found = (await tools()).find((t) => t.tool.name === params.name);
      if (!found) return { content: [{ type: 'text', text: `unknown tool "${params.name}"` }], isError: true };
      const { text, isError } = await this.run(tenantId, found.assistant, params.arguments ?? {}, res);
      return { content: [{ type: 'text', text }], isError };
    });
    return server;
  }

  private async toolsOf(tenantId: string): Promise<Array<{ tool: Tool; assistant: AssistantWire }>> {
    const { items } = await this.assistants.search(tenantId, { limit: 1000, offset: 0, sort_by: 'created_at', sort_order: 'asc' });
    const all = items as AssistantWire[];
    const schemas = await Promise.all(all.map((a) => this.inputSchemaOf(tenantId, a)));
    return assistantTools(all, (a) => schemas[all.indexOf(a)]);
  }

  /** The tool's input schema: the graph's, or — while its source is still being parsed — what its state channels show. */
  private async inputSchemaOf(tenantId: string, a: AssistantWire): Promise<Tool['inputSchema']> {
    const s = await this.assistants.schemas(tenantId, a.assistant_id, MCP_SCHEMA_WAIT_MS).catch(() => null);
    const input = s?.input_schema as Tool['inputSchema'] | undefined;
    return input && input.type === 'object' ? input : MESSAGES_INPUT;
  }

  /** One stateless run of the assistant, awaited; cancelled when the MCP client goes away first. */
  private async run(tenantId: string, assistant: AssistantWire, input: Record<string, unknown>, res: Response) {
    const body = RunCreate.parse({ assistant_id: assistant.assistant_id, input, on_disconnect: 'cancel' });
    const gone = new AbortController();
    let runId: string | undefined;
    // the response closing before it was sent: the client went away (a request's own 'close' fires once its body is
    // read). Listened to before the run is created: a client gone while it is being created still cancels it.
    const onClose = () => {
      if (res.writableFinished) return;
      gone.abort();
      if (runId) void this.runs.cancelQuietly(runId);
    };
    res.once('close', onClose);
    try {
      const { run, threadId } = await this.runs.create(tenantId, null, body, { waited: true });
      runId = run.id;
      if (gone.signal.aborted) void this.runs.cancelQuietly(run.id);
      return runOutputText(await this.runs.join(tenantId, threadId, run.id, gone.signal, true));
    } finally {
      res.off('close', onClose);
    }
  }
}
