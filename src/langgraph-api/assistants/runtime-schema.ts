import { toJsonSchema } from '@langchain/core/utils/json_schema';
import { isZodSchemaV3, isZodSchemaV4 } from '@langchain/core/utils/types';

/**
 * `@langchain/langgraph/zod/schema`, loaded with the service's `require`: its CommonJS build, whose registry is
 * the one graph modules register with. Typed here: this project's `moduleResolution` does not read package
 * subpath exports, and a tsconfig `paths` entry for it would also redirect tsx — with it, the reference server of
 * the conformance harness (started in this directory) would load the `.d.cts` and lose every graph's registry.
 */
interface ZodSchemaModule {
  getUpdateTypeSchema(graph: unknown): unknown;
  getInputTypeSchema(graph: unknown): unknown;
  getOutputTypeSchema(graph: unknown): unknown;
  getConfigTypeSchema(graph: unknown): unknown;
}
const serviceRequire: NodeJS.Require = require;
let zodSchemaModule: ZodSchemaModule | undefined;
const zodSchema = (): ZodSchemaModule => (zodSchemaModule ??= serviceRequire('@langchain/langgraph/zod/schema') as ZodSchemaModule);

/** The JSON schemas of one graph, as LangGraph Server derives them (any of them may be unknown). */
export interface GraphSchema {
  state?: unknown;
  input?: unknown;
  output?: unknown;
  config?: unknown;
}

/** What a StateGraph's builder keeps of the schemas it was given (LangGraph's internals, read as the server reads them). */
interface Builder {
  _schemaRuntimeDefinition?: unknown;
  _inputRuntimeDefinition?: unknown;
  _outputRuntimeDefinition?: unknown;
  _configRuntimeSchema?: unknown;
}

interface StateSchemaLike {
  getJsonSchema(): unknown;
  getInputJsonSchema(): unknown;
}

/** the builder's input definition when the input is the state, every key optional */
const PARTIAL_STATE = Symbol.for('langgraph.state.partial');

/**
 * The schemas a compiled graph carries at run time, in LangGraph Server's order: a `StateSchema` (its own JSON
 * schema, `jsonSchemaExtra` included), then zod schemas through LangGraph's schema registry (`withLangGraph` /
 * `registry` metadata such as `langgraph_type: "messages"`), then zod schemas converted as they are. Undefined
 * for `Annotation` states, whose value types exist only in the TypeScript source (see `StaticSchemas`).
 *
 * The registry is the one this service's `@langchain/langgraph` holds — the one graph modules register with,
 * since they import the service's packages.
 */
export function runtimeSchemaOf(graph: unknown): GraphSchema | undefined {
  const builder = (graph as { builder?: Builder } | null)?.builder;
  if (!builder || typeof builder !== 'object') return undefined;
  return stateSchemaOf(builder) ?? registrySchemaOf(graph) ?? plainZodSchemaOf(builder);
}

function isStateSchemaLike(value: unknown): value is StateSchemaLike {
  const v = value as Partial<StateSchemaLike> | null;
  return typeof v === 'object' && v !== null && typeof v.getJsonSchema === 'function' && typeof v.getInputJsonSchema === 'function';
}

function stateSchemaOf(builder: Builder): GraphSchema | undefined {
  const { _schemaRuntimeDefinition: state, _inputRuntimeDefinition: input, _outputRuntimeDefinition: output } = builder;
  if (!isStateSchemaLike(state) && !isStateSchemaLike(input) && !isStateSchemaLike(output)) return undefined;
  const inputSchema = isStateSchemaLike(input)
    ? input.getInputJsonSchema()
    : input === PARTIAL_STATE && isStateSchemaLike(state)
      ? state.getInputJsonSchema()
      : undefined;
  const out: GraphSchema = {
    state: isStateSchemaLike(state) ? state.getJsonSchema() : undefined,
    input: inputSchema,
    output: isStateSchemaLike(output) ? output.getJsonSchema() : undefined,
    config: undefined,
  };
  return out.state || out.input || out.output ? out : undefined;
}

function registrySchemaOf(graph: unknown): GraphSchema | undefined {
  try {
    const registry = zodSchema();
    const out: GraphSchema = {
      state: registry.getUpdateTypeSchema(graph),
      input: registry.getInputTypeSchema(graph),
      output: registry.getOutputTypeSchema(graph),
      config: registry.getConfigTypeSchema(graph),
    };
    return Object.values(out).every((s) => s == null) ? undefined : out;
  } catch {
    return undefined;
  }
}

function zodToJsonSchema(schema: unknown): unknown {
  if (!schema || !(isZodSchemaV4(schema) || isZodSchemaV3(schema))) return undefined;
  try {
    return toJsonSchema(schema as Parameters<typeof toJsonSchema>[0]);
  } catch {
    return undefined;
  }
}

function plainZodSchemaOf(builder: Builder): GraphSchema | undefined {
  const state = zodToJsonSchema(builder._schemaRuntimeDefinition);
  const input = zodToJsonSchema(builder._inputRuntimeDefinition) ?? (state ? { ...(state as object), required: undefined } : undefined);
  const out: GraphSchema = {
    state,
    input,
    output: zodToJsonSchema(builder._outputRuntimeDefinition),
    config: zodToJsonSchema(builder._configRuntimeSchema),
  };
  return Object.values(out).every((s) => s == null) ? undefined : out;
}
