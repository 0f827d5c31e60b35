import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { MemorySaver, StateGraph } from '@langchain/langgraph';

import { ModuleLoader } from '../../platform/module-loader';
import type { AgentDefinition, RunnableGraph, TurnContext } from '../agent-definition';
import { responseOf } from './custom-graph.agent';
import { loadCustomGraphs } from './custom-graphs';
import { applyGraphEnv, parseGraphSpec, readLanggraphConfig } from './langgraph-config';

const FIXTURES = path.resolve(__dirname, '../../../test/fixtures/graphs');
const FIXTURE_CONFIG = path.join(FIXTURES, 'langgraph.json');
const quiet = { log: () => undefined, warn: () => undefined };

function tempConfig(config: unknown, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'langgraph-json-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  const file = path.join(dir, 'langgraph.json');
  writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config));
  return file;
}

const turn = (message: string, extra: Partial<TurnContext> = {}): TurnContext => ({
  runId: 'r1',
  sessionId: 's1',
  message,
  metadata: {},
  ...extra,
});

async function runTurn(agent: AgentDefinition, t: TurnContext, threadId: string) {
  const graph = agent.graph as RunnableGraph & { invoke(input: unknown, options: unknown): Promise<Record<string, unknown>> };
  const values = await graph.invoke(agent.buildInput(t), { configurable: { thread_id: threadId } });
  return agent.toOutcome(values, t);
}

describe('langgraph.json', () => {
  it('reads graphs relative to the file, the default export, env, dependencies and the keys it does not use', () => {
    const c = readLanggraphConfig(FIXTURE_CONFIG);
    expect(c.graphs).toEqual([
      { name: 'echo', spec: './echo.ts:graph', file: path.join(FIXTURES, 'echo.ts'), exportName: 'graph' },
      { name: 'counter', spec: './counter.mts:counter', file: path.join(FIXTURES, 'counter.mts'), exportName: 'counter' },
      { name: 'greeter', spec: './greeter.mjs:makeGraph', file: path.join(FIXTURES, 'greeter.mjs'), exportName: 'makeGraph' },
      { name: 'chat', spec: './chat.ts', file: path.join(FIXTURES, 'chat.ts'), exportName: 'default' },
    ]);
    expect(c.env).toMatchObject({ CHAT_GRAPH_MODEL: 'fixture-model' });
    expect(c.dependencies).toEqual(['.']);
    expect(c.ignored).toEqual(['node_version']);
    expect(c.portability).toEqual([
      'graph "chat": "./chat.ts" names no export; the LangGraph CLI refuses it — write "./chat.ts:default" (read here as the default export)',
    ]);
  });

  it('parses specs as the CLI does (export after the last colon, a drive letter is not one)', () => {
    expect(parseGraphSpec('a', './g.ts', '/srv')).toMatchObject({ file: '/srv/g.ts', exportName: 'default' });
    expect(parseGraphSpec('a', './g.ts:', '/srv')).toMatchObject({ file: '/srv/g.ts', exportName: 'default' });
    expect(parseGraphSpec('a', '/abs/g.mts:make', '/srv')).toMatchObject({ file: '/abs/g.mts', exportName: 'make' });
    expect(parseGraphSpec('a', 'C:\\g.ts', '/srv').exportName).toBe('default');
  });

  it('reads env from a .env file beside the config; values already set are kept', () => {
    const file = tempConfig({ graphs: { g: './g.ts' }, env: '.env' }, { '.env': 'A=from-file\nB="quoted value"\n' });
    const { env } = readLanggraphConfig(file);
    expect(env).toEqual({ A: 'from-file', B: 'quoted value' });
    const target: Record<string, string | undefined> = { A: 'already' };
    expect(applyGraphEnv(env, target)).toEqual(['B']);
    expect(target).toEqual({ A: 'already', B: 'quoted value' });
  });

  it('rejects broken files with the file name and the problem', () => {
    expect(() => readLanggraphConfig(tempConfig('{ not json'))).toThrow(/LANGGRAPH_CONFIG .*langgraph\.json: .*JSON/);
    expect(() => readLanggraphConfig(tempConfig({ env: {} }))).toThrow(/graphs/);
    expect(() => readLanggraphConfig(tempConfig({ graphs: {} }))).toThrow(/"graphs" is empty/);
    expect(() => readLanggraphConfig(tempConfig({ graphs: { 'a b': './g.ts' } }))).toThrow(/graph name "a b"/);
    expect(() => readLanggraphConfig(tempConfig({ graphs: { g: './g.ts' }, env: '.env.missing' }))).toThrow(/env file .*\.env\.missing/);
    expect(() => readLanggraphConfig('/nonexistent/langgraph.json')).toThrow(/\/nonexistent\/langgraph\.json/);
  });
});

describe('ModuleLoader', () => {
  it('loads TypeScript with relative imports; packages are the service’s own instances', () => {
    const { graph } = new ModuleLoader().load(path.join(FIXTURES, 'echo.ts'));
    expect(graph).toBeInstanceOf(StateGraph);
  });

  it('loads ES modules (.mjs) and keeps named exports', () => {
    const { makeGraph } = new ModuleLoader().load(path.join(FIXTURES, 'greeter.mjs'));
    expect(typeof makeGraph).toBe('function');
  });

  it('names a missing relative import', () => {
    const file = tempConfig({ graphs: {} }, { 'broken.ts': "import { x } from './nowhere.js';\nexport const graph = x;\n" });
    expect(() => new ModuleLoader().load(path.join(path.dirname(file), 'broken.ts'))).toThrow(/Cannot find module '\.\/nowhere\.js'/);
  });
});

describe('loadCustomGraphs', () => {
  const env: Record<string, string | undefined> = {};
  let agents: Map<string, AgentDefinition>;

  beforeAll(async () => {
    const list = await loadCustomGraphs(FIXTURE_CONFIG, new MemorySaver(), new Set(['react']), quiet, env);
    agents = new Map(list.map((a) => [a.name, a]));
  });

  it('registers every graph by its key and sets env for the modules', () => {
    expect([...agents.keys()]).toEqual(['echo', 'counter', 'greeter', 'chat']);
    expect(env.CHAT_GRAPH_MODEL).toBe('fixture-model');
  });

  it('compiles a StateGraph with the checkpointer: the conversation continues on its thread', async () => {
    const echo = agents.get('echo')!;
    expect((await runTurn(echo, turn('hi'), 't-echo')).response).toBe('echo #1: hi');
    expect((await runTurn(echo, turn('again'), 't-echo')).response).toBe('echo #2: again');
  });

  it('attaches the checkpointer to a compiled graph; a state without messages answers as JSON', async () => {
    const counter = agents.get('counter')!;
    expect(JSON.parse((await runTurn(counter, turn('one'), 't-count')).response)).toEqual({ count: 1, by: 'counter.mts' });
    expect(JSON.parse((await runTurn(counter, turn('two'), 't-count')).response)).toEqual({ count: 2, by: 'counter.mts' });
  });

  it('calls a factory with the run’s config', async () => {
    const greeter = agents.get('greeter')!;
    const values = await greeter.graph.stream(greeter.buildInput(turn('x')), {
      configurable: { thread_id: 't-greet', greeting: 'hi' },
      streamMode: 'values',
    });
    let last: Record<string, unknown> = {};
    for await (const chunk of values) last = chunk as Record<string, unknown>;
    expect(responseOf(last)).toBe('hi from a factory (1 messages so far)');
    const state = await greeter.graph.getState({ configurable: { thread_id: 't-greet' } });
    expect((state.values.messages as unknown[]).length).toBe(2);
  });

  it('sends the raw LangGraph input when the turn carries one', async () => {
    const echo = agents.get('echo')!;
    const out = await runTurn(echo, turn('', { input: { messages: [{ role: 'user', content: 'raw' }] } }), 't-raw');
    expect(out.response).toBe('echo #1: raw');
  });

  it('answers with the last AI message’s text', () => {
    expect(responseOf({ messages: [new HumanMessage('q'), new AIMessage({ content: [{ type: 'text', text: 'a' }] })] })).toBe('a');
    expect(responseOf({ messages: [{ role: 'assistant', content: 'plain' }] })).toBe('plain');
  });

  it('fails on a name of a built-in agent, a missing file or a missing export, naming them', async () => {
    const load = (config: unknown) => loadCustomGraphs(tempConfig(config), new MemorySaver(), new Set(['react']), quiet, {});
    const echo = path.join(FIXTURES, 'echo.ts');
    await expect(load({ graphs: { react: `${echo}:graph` } })).rejects.toThrow(/graph "react" has the name of a built-in agent/);
    await expect(load({ graphs: { gone: './missing.ts:graph' } })).rejects.toThrow(
      /graph "gone" \(.*missing\.ts, export "graph"\).*ENOENT/,
    );
    await expect(load({ graphs: { nope: `${echo}:nope` } })).rejects.toThrow(
      /export "nope".*no export "nope" \(its exports: graph, respond\)/,
    );
    await expect(load({ graphs: { fn: `${echo}:respond` } })).resolves.toHaveLength(1); // a function is a factory: checked when called
  });
});
