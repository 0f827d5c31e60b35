import { Annotation, END, MessagesValue, ReducedValue, START, StateGraph, StateSchema } from '@langchain/langgraph';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';

import type { AgentDefinition } from '../../agents/agent-definition';
import type { AppConfig } from '../../config/app-config';
import type { LangGraphGraph } from '../graph-access';
import { channelSchemaOf, GraphSchemas } from './graph-schemas';
import { runtimeSchemaOf } from './runtime-schema';

/** `@langchain/langgraph/zod` as graph modules get it (the service's require: its CommonJS build and registry) */
const serviceRequire: NodeJS.Require = require;
const { registry, withLangGraph } = serviceRequire('@langchain/langgraph/zod') as {
  registry: z.core.$ZodRegistry<Record<string, unknown>>;
  withLangGraph: (schema: unknown, meta: Record<string, unknown>) => z3.ZodTypeAny;
};

type Props = { properties: Record<string, Record<string, unknown>> };
const props = (schema: unknown) => (schema as Props).properties;
const noop = () => ({});

/** a one-node graph of `builder` (typed loosely: only its schemas matter here) */
function compiled(builder: unknown): LangGraphGraph {
  const b = builder as StateGraph<any>;
  return b.addNode('node', noop).addEdge(START, 'node').addEdge('node', END).compile() as unknown as LangGraphGraph;
}

describe('runtimeSchemaOf', () => {
  it('a zod v4 state: registry jsonSchemaExtra on the field, the context schema as config', () => {
    const state = z.object({
      messages: z.array(z.string()).register(registry, {
        reducer: { fn: (a: string[], b: string[]) => a.concat(b) },
        default: () => [],
        jsonSchemaExtra: { langgraph_type: 'messages' },
      }),
      mood: z.enum(['calm', 'busy']),
    });
    const schema = runtimeSchemaOf(compiled(new StateGraph(state, z.object({ model: z.string() }))));
    expect(props(schema?.state).messages).toMatchObject({ type: 'array', items: { type: 'string' }, langgraph_type: 'messages' });
    expect(props(schema?.state).mood).toMatchObject({ type: 'string', enum: ['calm', 'busy'] });
    expect(props(schema?.config)).toEqual({ model: { type: 'string' } });
  });

  it('a zod v3 state through withLangGraph: its jsonSchemaExtra', () => {
    const state = z3.object({
      log: withLangGraph(z3.array(z3.string()), {
        reducer: { schema: z3.string(), fn: (a: string[], b: string) => [...a, b] },
        default: () => [],
        jsonSchemaExtra: { langgraph_type: 'messages' },
      }),
    });
    const schema = runtimeSchemaOf(compiled(new StateGraph(state)));
    expect(props(schema?.state).log).toMatchObject({ langgraph_type: 'messages' });
  });

  it('a StateSchema: its own JSON schema, jsonSchemaExtra included, and no config', () => {
    const state = new StateSchema({
      messages: MessagesValue,
      total: new ReducedValue(z.number().default(0), { reducer: (a: number, b: number) => a + b, jsonSchemaExtra: { unit: 'tokens' } }),
    });
    const schema = runtimeSchemaOf(compiled(new StateGraph(state)));
    expect(props(schema?.state).messages).toMatchObject({ langgraph_type: 'messages' });
    expect(props(schema?.state).total).toMatchObject({ type: 'number', unit: 'tokens' });
    expect(schema?.config).toBeUndefined();
  });

  it('an Annotation state carries no schema at run time (undefined: read from the source instead)', () => {
    expect(runtimeSchemaOf(compiled(new StateGraph(Annotation.Root({ n: Annotation<number>() }))))).toBeUndefined();
    expect(runtimeSchemaOf({})).toBeUndefined();
  });
});

describe('GraphSchemas', () => {
  const schemas = new GraphSchemas({ schemaResolveTimeoutMs: 1000 } as AppConfig);
  const agent = (source?: AgentDefinition['source']) => ({ name: 'g', source }) as AgentDefinition;
  const annotationGraph = () => compiled(new StateGraph(Annotation.Root({ messages: Annotation<string[]>(), step: Annotation<number>() })));

  it('a built-in agent with an Annotation state: its state channels (messages an array), input included', async () => {
    const schema = await schemas.of(agent(), annotationGraph());
    expect(schema).toEqual(channelSchemaOf(annotationGraph()));
    expect(props(schema.state)).toEqual({ messages: { type: 'array', items: { type: 'object' } }, step: {} });
    expect(props(schema.input)).toEqual(props(schema.state));
  });

  it('a source that cannot be parsed: the state channels, not an error', async () => {
    const schema = await schemas.of(agent({ file: '/nonexistent/graph.mts', exportName: 'graph' }), annotationGraph());
    expect(props(schema.state)).toEqual({ messages: { type: 'array', items: { type: 'object' } }, step: {} });
  }, 30_000);
});

describe('GraphSchemas.within', () => {
  const graph = compiled(new StateGraph(Annotation.Root({ topic: Annotation<string> })));
  const agent = { name: 'g', source: { file: '/nowhere/graph.ts', exportName: 'graph' } } as unknown as AgentDefinition;
  /** GraphSchemas whose source parse answers when `parsed` resolves */
  function schemasParsing(parsed: Promise<unknown>): GraphSchemas {
    const schemas = new GraphSchemas({ schemaResolveTimeoutMs: 60_000 } as AppConfig);
    const stub = { of: () => parsed, close: () => undefined };
    Object.assign(schemas, { statics: stub });
    return schemas;
  }

  it('answers with the state channels when the parse outlasts the wait, and with the parse once it is done', async () => {
    let finish!: (v: unknown) => void;
    const schemas = schemasParsing(new Promise((resolve) => (finish = resolve)));
    const started = Date.now();
    expect(await schemas.within(agent, graph, 50)).toEqual(channelSchemaOf(graph));
    expect(Date.now() - started).toBeLessThan(1000);
    const parsedSchema = { state: {}, input: { type: 'object', title: 'parsed' }, output: {}, config: {} };
    finish({ graph: parsedSchema });
    expect(await schemas.within(agent, graph, 50)).toEqual(parsedSchema);
  });
});
