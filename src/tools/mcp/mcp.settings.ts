import { readFileSync } from 'node:fs';

import { z } from 'zod';

import { defineSettings, int, invalidConfiguration, optionalString, type SettingsOf, variable } from '../../config/settings';

/** What a server's tools may do, for the tool guard (tool-risk.ts `mcpPolicy`). */
export const McpRisk = z.enum(['low', 'medium', 'high']);
export type McpRisk = z.infer<typeof McpRisk>;

const common = {
  risk: McpRisk.default('high'),
  /** each call's time limit; past it the call is a tool error the model sees */
  timeout_ms: z.number().int().min(100).default(30_000),
  /** the built-in agents given every tool of this server (`react`, `assistant`, `plan-execute`, …) */
  agents: z.array(z.string()).default([]),
};

const StdioServer = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  ...common,
});

const HttpServer = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).optional(),
  ...common,
});

/** A server's name prefixes its tools' names (`<server>__<tool>`): letters, digits, `_` and `-` as tool names allow. */
const ServerName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/, 'a server name: letters, digits, _ and -, at most 32');
const Servers = z.record(ServerName, z.union([StdioServer, HttpServer]));

export type McpServerConfig = z.infer<typeof StdioServer> | z.infer<typeof HttpServer>;
export type McpServers = Readonly<Record<string, McpServerConfig>>;

/** MCP servers as tool sources (`src/tools/mcp/`). */
export const mcpSettings = defineSettings({
  module: 'tools',
  variables: {
    MCP_SERVERS: variable(
      optionalString,
      'MCP servers whose tools the agents may use, as JSON or the path of a JSON file: `{ "<name>": { "command", "args", "env", "cwd" } | { "url", "headers" }, with "risk": "low" | "medium" | "high" (default `high`), "timeout_ms" (per call, default 30000), "agents": ["react", …] }`; tools are named `<name>__<tool>` (see "MCP")',
      'none',
    ),
    MCP_RETRY_MAX_MS: variable(
      int(30_000, 100),
      'an MCP server that is down (at start or later) is retried in the background, waiting twice as long each time up to this',
    ),
  },
  build: (e) => ({
    /** MCP_SERVERS: the servers by name (none when unset) */
    mcpServers: e.MCP_SERVERS ? parseServers(e.MCP_SERVERS) : ({} as McpServers),
    /** MCP_RETRY_MAX_MS: the longest wait between two attempts to reach a server that is down */
    mcpRetryMaxMs: e.MCP_RETRY_MAX_MS,
  }),
});

function parseServers(setting: string): McpServers {
  let text = setting;
  try {
    if (!setting.trimStart().startsWith('{')) text = readFileSync(setting, 'utf8');
  } catch (err) {
    throw invalidConfiguration(`MCP_SERVERS: neither JSON nor a readable file (${(err as Error).message})`);
  }
  try {
    return Servers.parse(JSON.parse(text));
  } catch (err) {
    const issues = err instanceof z.ZodError ? z.prettifyError(err).replace(/\n/g, ' ') : (err as Error).message;
    throw invalidConfiguration(`MCP_SERVERS: ${issues}`);
  }
}

declare module '../../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: this slice's fields on AppConfig
  interface AppConfig extends SettingsOf<typeof mcpSettings> {}
}
