import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { Logger } from '@nestjs/common';

import type { AgentDefinition } from '../../src/agents/agent-definition';
import type { AppConfig } from '../../src/config/app-config';
import { GraphSchemas } from '../../src/langgraph-api/assistants/graph-schemas';
import { modulesOverlay } from '../../src/langgraph-api/assistants/static-schema';
import type { LangGraphGraph } from '../../src/langgraph-api/graph-access';

const BOUND_MS = 90_000;

const graphSource = (from: string) => `
import { Annotation, END, START, StateGraph } from '${from}';

const State = Annotation.Root({ topic: Annotation<string>(), count: Annotation<number>() });
export const graph = new StateGraph(State)
  .addNode('step', (s: typeof State.State) => ({ count: s.count + 1 }))
  .addEdge(START, 'step')
  .addEdge('step', END)
  .compile();
`;

/** the same graph as the module's, built here: what its state channels show */
const compiled = () =>
  new StateGraph(Annotation.Root({ topic: Annotation<string>(), count: Annotation<number>() }))
    .addNode('step', () => ({}))
    .addEdge(START, 'step')
    .addEdge('step', END)
    .compile() as unknown as LangGraphGraph;

/**
 * `/assistants/{id}/schemas` of a `langgraph.json` graph in a folder without its own `node_modules` (a graph
 * beside the service, not a project of its own): its types resolve against the service's `@langchain/langgraph`,
 * within LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS; when they cannot resolve at all, the state channels, with a
 * warning naming why — never empty schemas without a word.
 */
describe('graph schemas of a graph folder without node_modules', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'graph-schemas-'));
  const lines: string[] = [];
  const schemas = new GraphSchemas({ schemaResolveTimeoutMs: BOUND_MS } as AppConfig);
  const agent = (file: string) => ({ name: 'g', source: { file, exportName: 'graph' } }) as AgentDefinition;

  beforeAll(() => {
    writeFileSync(path.join(dir, 'graph.ts'), graphSource('@langchain/langgraph'));
    writeFileSync(path.join(dir, 'lost.ts'), graphSource('@not-installed/langgraph'));
    for (const level of ['log', 'warn'] as const)
      jest
        .spyOn(Logger.prototype, level)
        .mockImplementation((...args: unknown[]) => void lines.push(typeof args[0] === 'string' ? args[0] : JSON.stringify(args[0])));
  });
  afterAll(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it("sees the service's node_modules as the folder's only when the folder resolves no @langchain/langgraph", () => {
    expect(modulesOverlay(path.join(dir, 'graph.ts'))).toEqual({
      from: path.join(dir, 'node_modules'),
      to: expect.stringMatching(/node_modules$/),
    });
    expect(modulesOverlay(path.resolve(__dirname, '../fixtures/graphs/echo.ts'))).toBeNull();
  });

  it(
    'infers the schemas from the types, against the service install, within the bound',
    async () => {
      const started = Date.now();
      const schema = await schemas.of(agent(path.join(dir, 'graph.ts')), compiled());
      const ms = Date.now() - started;
      expect((schema.state as { properties: object }).properties).toEqual({ topic: { type: 'string' }, count: { type: 'number' } });
      expect(ms).toBeLessThan(BOUND_MS);
      expect(lines.join('\n')).toMatch(/graph schemas: reading the TypeScript types of .*graph\.ts[\s\S]*read in \d+ ms/);
      console.log(`first schemas of a graph folder without node_modules: ${ms} ms`);
    },
    BOUND_MS + 10_000,
  );

  it(
    'types that resolve nowhere: the state channels, with a warning that says why',
    async () => {
      const schema = await schemas.of(agent(path.join(dir, 'lost.ts')), compiled());
      expect((schema.state as { properties: object }).properties).toEqual({ topic: {}, count: {} });
      expect(lines.join('\n')).toMatch(/using the state channels.*did not resolve.*Cannot find module '@not-installed\/langgraph'/);
    },
    BOUND_MS + 10_000,
  );
});
