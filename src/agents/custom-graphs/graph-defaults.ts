import { z } from 'zod';

/** A graph's default config and runtime context, as LangGraph Platform reads them from `LANGGRAPH_CONFIG`. */
export interface GraphDefaults {
  config: Record<string, unknown>;
  context: Record<string, unknown>;
}

/** `{"<graph>": {"configurable": {...}, "context": {...}, ...}}`: per graph, `context` apart, the rest its config. */
export type GraphDefaultsMap = Readonly<Record<string, GraphDefaults>>;

const schema = z.record(z.string(), z.record(z.string(), z.unknown()));

/** A LANGGRAPH_CONFIG value that is JSON (per-graph defaults) rather than the path of a `langgraph.json`. */
export function isGraphDefaultsJson(value: string | undefined): value is string {
  return value !== undefined && value.trimStart().startsWith('{');
}

/** Parses per-graph defaults; a value that is not such JSON is an error naming `source`. */
export function parseGraphDefaults(json: string, source: string): GraphDefaultsMap {
  let parsed: Record<string, Record<string, unknown>>;
  try {
    parsed = schema.parse(JSON.parse(json));
  } catch (err) {
    throw new Error(
      `Invalid configuration: ${source}: not JSON of per-graph defaults {"<graph>": {"configurable": {...}}}: ${(err as Error).message}`,
    );
  }
  return Object.fromEntries(Object.entries(parsed).map(([graph, entry]) => [graph, defaultsOf(entry)]));
}

function defaultsOf(entry: Record<string, unknown>): GraphDefaults {
  const { context, ...config } = entry;
  const isObject = typeof context === 'object' && context !== null && !Array.isArray(context);
  return { config, context: isObject ? (context as Record<string, unknown>) : {} };
}

/** The defaults of one graph: none is empty config and context. */
export function defaultsFor(map: GraphDefaultsMap | undefined, graph: string): GraphDefaults {
  return map?.[graph] ?? { config: {}, context: {} };
}
