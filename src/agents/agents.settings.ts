import { existsSync } from 'node:fs';
import path from 'node:path';

import { z } from 'zod';

import { defineSettings, int, invalidConfiguration, list, optionalString, type SettingsOf, variable } from '../config/settings';
import { LANGUAGES } from '../core/language';
import { isGraphDefaultsJson, parseGraphDefaults } from './custom-graphs/graph-defaults';
import { DEFAULT_SUB_AGENTS } from './supervisor/default-sub-agents';

const SubAgents = z
  .array(z.object({ name: z.string().regex(/^[A-Za-z_][\w-]*$/), description: z.string(), role: z.string(), tools: z.array(z.string()) }))
  .min(1);

/** The agents: which are registered, the default, each one's limits, custom graphs. */
export const agentsSettings = defineSettings({
  module: 'agents',
  variables: {
    DEFAULT_AGENT: variable(z.string().default('react'), 'agent used when a request names none'),
    DEFAULT_LANGUAGE: variable(
      z.enum(LANGUAGES).default('en'),
      'the language of answers to a message whose script tells none (`12 * 7`); otherwise every answer follows the message: Hangul → `ko`, Latin → `en`, kana → `ja`, Han → `zh`, Cyrillic → `ru`, …',
    ),
    BUILTIN_AGENTS: variable(
      optionalString,
      'the built-in agents this process registers (comma-separated, `none` for none)',
      'unset → all',
    ),
    REACT_MAX_ITERATIONS: variable(
      z.coerce.number().int().min(1).optional(),
      "`react`'s model iterations per turn (then `ITERATION_LIMIT`)",
      '`MAX_ITERATIONS`, else `5`',
    ),
    MAX_ITERATIONS: variable(
      z.coerce.number().int().min(1).optional(),
      "deprecated: `react`'s limit when `REACT_MAX_ITERATIONS` is unset; limits no other agent",
    ),
    ASSISTANT_MAX_ITERATIONS: variable(int(10, 1), "the assistant's model iterations per turn (then `ITERATION_LIMIT`)"),
    CONTRACT_QA_MAX_ITERATIONS: variable(int(5, 1), "contract-qa's model iterations per turn (then it answers with what it found)"),
    ASSISTANT_MAX_MESSAGES: variable(int(10, 2), "the assistant's memory: summarise beyond this many messages"),
    ASSISTANT_KEEP_RECENT: variable(int(5, 1), "the assistant's memory: messages kept verbatim (at most `ASSISTANT_MAX_MESSAGES` − 1)"),
    ASSISTANT_MAX_SUMMARIES: variable(int(3, 1), "the assistant's memory: the window of summaries"),
    SUPERVISOR_MAX_ROUTINGS: variable(int(5, 1), "the supervisor's routings per turn"),
    SUPERVISOR_AGENT_MAX_ITERATIONS: variable(int(10, 1), "model iterations per turn of each of the supervisor's sub-agents"),
    SUPERVISOR_AGENTS: variable(
      optionalString,
      'JSON `[{ name, description, role, tools: [...] }]` replacing the default `rag_agent` / `external_agent` / `internal_agent`',
      'the three built-in sub-agents',
    ),
    PLAN_EXECUTE_MAX_REPLANS: variable(int(2, 0), "plan-execute's re-plans per turn"),
    PLAN_EXECUTE_STEP_TIMEOUT_MS: variable(int(20_000, 100), "plan-execute's time limit per step"),
    LANGGRAPH_CONFIG: variable(
      optionalString,
      'two meanings: a value starting with `{` is JSON of per-graph defaults as on LangGraph Platform, `{"<graph>": {"configurable": {...}, "context": {...}}}` (each graph\'s system assistant config and context, applied to its runs; also read from `langgraph.json`\'s `env`); any other value is the path of a LangGraph CLI `langgraph.json` whose `graphs` are served as extra agents (see "Custom graphs"); a file that does not load stops the start-up',
      'path: `./langgraph.json` when it exists, else none; defaults: none',
    ),
  },
  build: (e) => {
    /** model iterations per turn, per agent (seeds: react 5, contract-qa 5; the assistant's seed sets none → 10) */
    const iterationLimits = {
      react: e.REACT_MAX_ITERATIONS ?? e.MAX_ITERATIONS ?? 5,
      assistant: e.ASSISTANT_MAX_ITERATIONS,
      contractQa: e.CONTRACT_QA_MAX_ITERATIONS,
    };
    return {
      defaultAgent: e.DEFAULT_AGENT,
      /** DEFAULT_LANGUAGE: the answers' language when the message's script tells none */
      defaultLanguage: e.DEFAULT_LANGUAGE,
      /** BUILTIN_AGENTS: the built-in agents registered; undefined → all of them */
      builtInAgents: e.BUILTIN_AGENTS ? (new Set(list(e.BUILTIN_AGENTS).filter((a) => a !== 'none')) as ReadonlySet<string>) : undefined,
      iterationLimits,
      /** react's limit (REACT_MAX_ITERATIONS, else the deprecated MAX_ITERATIONS) — kept for callers of the old name */
      maxIterations: iterationLimits.react,
      /** the assistant agent's memory limits (seed 001: 10 / 5 / 3) */
      assistantMemory: {
        maxMessages: e.ASSISTANT_MAX_MESSAGES,
        keepRecent: Math.min(e.ASSISTANT_KEEP_RECENT, e.ASSISTANT_MAX_MESSAGES - 1),
        maxSummaries: e.ASSISTANT_MAX_SUMMARIES,
      },
      /** seed 003: max 5 routings, 10 iterations per sub-agent; agents replaceable with SUPERVISOR_AGENTS (JSON) */
      supervisor: {
        maxRoutings: e.SUPERVISOR_MAX_ROUTINGS,
        agentMaxIterations: e.SUPERVISOR_AGENT_MAX_ITERATIONS,
        agents: e.SUPERVISOR_AGENTS ? parseSubAgents(e.SUPERVISOR_AGENTS) : DEFAULT_SUB_AGENTS,
      },
      /** seed 004: re-plans per turn (default 2) and each step's time limit */
      planExecute: { maxReplans: e.PLAN_EXECUTE_MAX_REPLANS, stepTimeoutMs: e.PLAN_EXECUTE_STEP_TIMEOUT_MS },
      /** custom graphs: the absolute path of the `langgraph.json` whose graphs are registered as agents, if any */
      langgraphConfig: langgraphConfigPath(isGraphDefaultsJson(e.LANGGRAPH_CONFIG) ? undefined : e.LANGGRAPH_CONFIG),
      /** LANGGRAPH_CONFIG as JSON: per-graph default config and context (else those of langgraph.json's `env`) */
      graphDefaults: isGraphDefaultsJson(e.LANGGRAPH_CONFIG) ? parseGraphDefaults(e.LANGGRAPH_CONFIG, 'LANGGRAPH_CONFIG') : undefined,
    };
  },
});

function parseSubAgents(json: string): Array<{ name: string; description: string; role: string; tools: string[] }> {
  try {
    return SubAgents.parse(JSON.parse(json));
  } catch (err) {
    throw invalidConfiguration(`SUPERVISOR_AGENTS: ${(err as Error).message}`);
  }
}

/** LANGGRAPH_CONFIG as given (relative to the working directory), else ./langgraph.json when that file exists. */
function langgraphConfigPath(setting: string | undefined): string | undefined {
  if (setting) return path.resolve(setting);
  const fallback = path.resolve('langgraph.json');
  return existsSync(fallback) ? fallback : undefined;
}

declare module '../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: this slice's fields on AppConfig
  interface AppConfig extends SettingsOf<typeof agentsSettings> {}
}
