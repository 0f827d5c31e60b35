import { z } from 'zod';

import { defineSettings, int, invalidConfiguration, namedEntries, optionalString, type SettingsOf, variable } from '../../config/settings';

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
const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

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

function parseServers(setting: string) {
  return namedEntries('MCP_SERVERS', setting, 'servers', parseServer);
}

/** One server, checked as stdio (`command`) or HTTP (`url`), so that a problem names its field. */
function parseServer(name: string, server: unknown): McpServerConfig {
  if (!SERVER_NAME.test(name))
    throw invalidConfiguration(`MCP_SERVERS: "${name}" is not a server name (letters, digits, _ and -, at most 32)`);
  const schema = server && typeof server === 'object' && 'url' in server ? HttpServer : StdioServer;
  const parsed = schema.safeParse(server);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${[name, ...i.path].join('.')}: ${i.message}`).join('; ');
  throw invalidConfiguration(`MCP_SERVERS: ${problems}`);
}

declare module '../../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: this slice's fields on AppConfig
  interface AppConfig extends SettingsOf<typeof mcpSettings> {}
}
