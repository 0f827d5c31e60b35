import type { BaseCheckpointSaver } from '@langchain/langgraph';
import type { LoggerService } from '@nestjs/common';

import { ModuleLoader } from '../../platform/module-loader';
import type { AgentDefinition } from '../agent-definition';
import { customGraphAgent, graphOfExport } from './custom-graph.agent';
import { defaultsFor, type GraphDefaultsMap, isGraphDefaultsJson, parseGraphDefaults } from './graph-defaults';
import { applyGraphEnv, readLanggraphConfig } from './langgraph-config';
import { registerSdkLogger } from './sdk-logger';

/**
 * The graphs of a `langgraph.json` as agents, as the LangGraph CLI registers them: `env` first (without
 * overriding what is set), then each module loaded and its export resolved. Any problem — a name taken by a
 * built-in agent, a missing file or export, a module that throws — is an error naming the graph, its file
 * and export: the service does not start with part of its configured graphs.
 */
export async function loadCustomGraphs(
  configPath: string,
  checkpointer: BaseCheckpointSaver,
  builtIn: ReadonlySet<string>,
  logger: Pick<LoggerService, 'log' | 'warn'>,
  env: Record<string, string | undefined> = process.env,
  defaults?: GraphDefaultsMap,
): Promise<AgentDefinition[]> {
  const config = readLanggraphConfig(configPath);
  const graphDefaults = defaults ?? defaultsOfEnv(config.env, configPath);
  for (const { name } of config.graphs) {
    if (builtIn.has(name)) {
      throw new Error(`Invalid configuration: LANGGRAPH_CONFIG ${configPath}: graph "${name}" has the name of a built-in agent; rename it`);
    }
  }
  const set = applyGraphEnv(config.env, env);
  if (Object.keys(config.env).length > 0) {
    logger.log({ msg: 'langgraph.json env applied', set, kept: Object.keys(config.env).filter((k) => !set.includes(k)) });
  }
  if (config.dependencies.length > 0) {
    logger.log({
      msg: 'langgraph.json dependencies are not installed: graph modules import the service’s packages, then their own node_modules',
      dependencies: config.dependencies,
    });
  }
  if (config.ignored.length > 0) logger.warn({ msg: 'langgraph.json keys not used by this service', keys: config.ignored });
  for (const warning of config.portability) logger.warn(`${config.path}: ${warning}`);
  registerSdkLogger();
  const loader = new ModuleLoader();
  const agents: AgentDefinition[] = [];
  for (const spec of config.graphs) {
    const label = `graph "${spec.name}" (${spec.file}, export "${spec.exportName}")`;
    try {
      const exports = loader.load(spec.file);
      if (!(spec.exportName in exports)) {
        const has = Object.keys(exports).join(', ') || 'none';
        throw new Error(`the module has no export "${spec.exportName}" (its exports: ${has})`);
      }
      const graph = await graphOfExport(exports[spec.exportName], checkpointer, `export "${spec.exportName}"`);
      agents.push({ ...customGraphAgent(spec, graph), defaults: defaultsFor(graphDefaults, spec.name) });
    } catch (err) {
      throw new Error(`Cannot load ${label} from LANGGRAPH_CONFIG ${configPath}: ${(err as Error).message}`, { cause: err });
    }
    logger.log({ msg: 'custom graph registered', graph: spec.name, file: spec.file, export: spec.exportName });
  }
  return agents;
}

/** `env.LANGGRAPH_CONFIG` of a `langgraph.json`, when it is JSON: the graphs' defaults, as the platform reads it. */
function defaultsOfEnv(env: Record<string, string>, configPath: string): GraphDefaultsMap | undefined {
  const value = env.LANGGRAPH_CONFIG;
  return isGraphDefaultsJson(value) ? parseGraphDefaults(value, `LANGGRAPH_CONFIG of ${configPath} env`) : undefined;
}
