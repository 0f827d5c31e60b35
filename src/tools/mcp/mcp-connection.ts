import { createHash } from 'node:crypto';

import type { StructuredToolInterface } from '@langchain/core/tools';
import { loadMcpTools } from '@langchain/mcp-adapters';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

import type { McpServerConfig } from './mcp.settings';

/** One connected MCP server: its client and its tools as LangChain tools (`<server>__<tool>`). */
export interface McpConnection {
  tools: StructuredToolInterface[];
  close(): Promise<void>;
}

function transportFor(server: McpServerConfig, onStderr: (line: string) => void): Transport {
  if ('url' in server) return new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } });
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    env: { ...getDefaultEnvironment(), ...server.env },
    cwd: server.cwd,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => onStderr(chunk.toString('utf8').trimEnd()));
  return transport;
}

/** Connecting (a stdio server's process start included) and listing the tools may take this long, or `timeout_ms` if longer. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Connects to `server` and lists its tools; each tool's calls are limited to the server's `timeout_ms`
 * (`defaultToolTimeout`: past it the call fails as a tool error). `onClose`: the connection ended later (a stdio
 * server exited, the transport failed).
 */
export async function connectMcpServer(
  name: string,
  server: McpServerConfig,
  hooks: { onClose: () => void; onStderr: (line: string) => void },
): Promise<McpConnection> {
  const client = new Client({ name: 'agent-orchestrator', version: '1' });
  const transport = transportFor(server, hooks.onStderr);
  try {
    await client.connect(transport, { timeout: Math.max(server.timeout_ms, CONNECT_TIMEOUT_MS) });
    const tools = await loadMcpTools(name, client, {
      prefixToolNameWithServerName: true,
      throwOnLoadError: false, // a tool with a schema the adapters cannot take is left out, not the whole server
      defaultToolTimeout: server.timeout_ms,
    });
    client.onclose = hooks.onClose;
    return { tools: withModelSafeNames(tools), close: () => client.close() };
  } catch (err) {
    await client.close().catch(() => undefined);
    throw err;
  }
}

/** What chat-completion APIs take as a function name (OpenAI: `^[a-zA-Z0-9_-]{1,64}$`). */
const MODEL_SAFE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * An MCP tool's name as a model can call it: characters the APIs refuse (`.`, spaces, `/`, letters of any other
 * script) become `_`, and a name that changed or runs past 64 characters ends in 8 hex characters of the original's
 * hash, so `a.b` and `a_b` stay two tools. The call still goes to the server under its own name (the adapters keep it).
 */
export function modelSafeToolName(name: string): string {
  if (MODEL_SAFE_NAME.test(name)) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  const base = name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64 - 9);
  return `${base}_${hash}`;
}

function withModelSafeNames(tools: StructuredToolInterface[]): StructuredToolInterface[] {
  for (const tool of tools) (tool as { name: string }).name = modelSafeToolName(tool.name);
  return tools;
}
