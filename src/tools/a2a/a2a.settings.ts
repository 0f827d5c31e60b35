import { z } from 'zod';

import { defineSettings, int, invalidConfiguration, namedEntries, optionalString, type SettingsOf, variable } from '../../config/settings';

const RemoteAgent = z.strictObject({
  /** the agent card's full URL (e.g. `https://host/.well-known/agent-card.json`) */
  card_url: z.url({ protocol: /^https?$/ }),
  /** sent with every request to the card's origin (credentials: Authorization, x-api-key, …) */
  headers: z.record(z.string(), z.string()).optional(),
  /** each call's time limit; past it the call is stopped (and its remote task cancelled) and the model gets a tool error */
  timeout_ms: z.number().int().min(100).default(60_000),
  /** the longest answer kept, in characters; the rest is cut with a marker */
  max_chars: z.number().int().min(100).default(20_000),
  /** the most bytes one call may receive (a stream past it is aborted) */
  max_bytes: z
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  /** the built-in agents given it as a tool (`react`, `assistant`, `plan-execute`, …) */
  agents: z.array(z.string()).default([]),
  /** a sub-agent the supervisor can delegate to */
  supervisor: z.boolean().default(false),
});

export type A2aAgentConfig = z.infer<typeof RemoteAgent>;
export type A2aAgents = Readonly<Record<string, A2aAgentConfig>>;

/**
 * A remote agent's name: its tool is `a2a__<name>` and, as a supervisor sub-agent, the supervisor delegates to
 * `<name>` (a letter first, as its `Delegate:` line reads names).
 */
const AGENT_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;

/** Remote A2A agents our agents may call (`src/tools/a2a/`). */
export const a2aSettings = defineSettings({
  module: 'tools',
  variables: {
    A2A_AGENTS: variable(
      optionalString,
      'remote A2A agents our agents may call, as JSON or the path of a JSON file: `{ "<name>": { "card_url", "headers" (sent to the card\'s origin), "timeout_ms" (per call, default 60000), "max_chars" (longest answer kept, default 20000), "max_bytes" (per call, default 1048576), "agents": ["react", …], "supervisor": true|false } }`; each is the tool `a2a__<name>` (see "Calling remote A2A agents")',
      'none',
    ),
    A2A_RETRY_MAX_MS: variable(
      int(30_000, 100),
      'a remote A2A agent whose card could not be fetched is tried again in the background, waiting twice as long each time up to this',
    ),
  },
  build: (e) => ({
    /** A2A_AGENTS: the remote agents by name (none when unset) */
    a2aAgents: e.A2A_AGENTS ? parseAgents(e.A2A_AGENTS) : ({} as A2aAgents),
    /** A2A_RETRY_MAX_MS: the longest wait between two attempts to fetch a card */
    a2aRetryMaxMs: e.A2A_RETRY_MAX_MS,
  }),
});

function parseAgents(setting: string) {
  return namedEntries('A2A_AGENTS', setting, 'agents', parseAgent);
}

/** One agent, so that a problem names its field (`<name>.<field>`). */
function parseAgent(name: string, agent: unknown): A2aAgentConfig {
  if (!AGENT_NAME.test(name))
    throw invalidConfiguration(`A2A_AGENTS: "${name}" is not an agent name (a letter, then letters, digits, _ and -, at most 32)`);
  const parsed = RemoteAgent.safeParse(agent);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${[name, ...i.path].join('.')}: ${i.message}`).join('; ');
  throw invalidConfiguration(`A2A_AGENTS: ${problems}`);
}

declare module '../../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: this slice's fields on AppConfig
  interface AppConfig extends SettingsOf<typeof a2aSettings> {}
}
