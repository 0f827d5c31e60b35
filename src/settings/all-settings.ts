import { agentsSettings } from '../agents/agents.settings';
import { apiSettings } from '../api/api.settings';
import { authSettings } from '../auth/auth.settings';
import { tokenSettings } from '../auth/token.settings';
import { registerSettings } from '../config/app-config';
import { consoleSettings } from '../console/console.settings';
import { databaseSettings } from '../database/database.settings';
import { eventsSettings } from '../events/events.settings';
import { knowledgeSettings } from '../knowledge/knowledge.settings';
import { langgraphApiSettings } from '../langgraph-api/langgraph-api.settings';
import { llmSettings } from '../llm/llm.settings';
import { observabilitySettings } from '../observability/observability.settings';
import { runsSettings } from '../runs/runs.settings';
import { a2aSettings } from '../tools/a2a/a2a.settings';
import { mcpSettings } from '../tools/mcp/mcp.settings';
import { toolsSettings } from '../tools/tools.settings';

/**
 * Every settings slice of the service, in one list (the entry layer: main, worker, cli, the app module and the
 * embeddable module import this file before they build an AppConfig). The order is the settings table's order and
 * the order problems are reported in. `npm run settings:table` prints the settings table (docs/configuration.md) from it.
 */
export const SETTINGS = [
  apiSettings,
  observabilitySettings,
  databaseSettings,
  runsSettings,
  eventsSettings,
  agentsSettings,
  llmSettings,
  knowledgeSettings,
  toolsSettings,
  mcpSettings,
  a2aSettings,
  authSettings,
  tokenSettings,
  langgraphApiSettings,
  consoleSettings,
] as const;

registerSettings(SETTINGS);
