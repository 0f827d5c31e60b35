import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { createTestDatabase, type TestDatabase } from '../support/infra';
import { freePort } from '../support/main-process';
import { waitFor } from '../support/test-app';

/**
 * `npm run dev` (issue 27): the service from its sources, no build, and a graph of `langgraph.json` reloaded
 * when its file changes — as `langgraphjs dev` does.
 */
const REPO = path.resolve(__dirname, '../..');

const graphSource = (reply: string) => `
import { AIMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';

export const graph = new StateGraph(MessagesAnnotation)
  .addNode('reply', () => ({ messages: [new AIMessage(${JSON.stringify(reply)})] }))
  .addEdge(START, 'reply')
  .addEdge('reply', END);
`;

describe('npm run dev', () => {
  let dir: string;
  let db: TestDatabase;
  let dev: ChildProcess | undefined;
  let output = '';

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'dev-'));
    writeFileSync(path.join(dir, 'langgraph.json'), JSON.stringify({ graphs: { hello: './hello.ts:graph' } }));
    writeFileSync(path.join(dir, 'hello.ts'), graphSource('version one'));
    db = await createTestDatabase('dev_cmd');
  });

  afterAll(async () => {
    if (dev && dev.exitCode === null) {
      const exited = new Promise((r) => dev!.once('exit', r));
      dev.kill('SIGTERM');
      await exited;
    }
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** the graph's reply to one stateless run */
  async function reply(url: string): Promise<string | undefined> {
    const res = await fetch(`${url}/runs/wait`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ assistant_id: 'hello', input: { messages: [{ role: 'user', content: 'hi' }] } }),
    }).catch(() => undefined);
    if (!res?.ok) return undefined;
    const values = (await res.json()) as { messages?: Array<{ content: string }> };
    return values.messages?.at(-1)?.content;
  }

  /** the built service's entry (absent before a build): `npm run dev` must not write it */
  const builtMain = () => statSync(path.join(REPO, 'dist', 'main.js'), { throwIfNoEntry: false })?.mtimeMs;

  // the limits are a slow machine's: from its sources the service starts in seconds on a quiet one, but a CI
  // machine running other suites beside it can take a minute to load them, and as long again after the edit
  it('listens without a build, serves the console, and serves the graph again, changed, after its file is edited', async () => {
    const port = await freePort();
    const builtBefore = builtMain();
    dev = spawn(process.execPath, ['-r', './test/support/swc-register.js', 'scripts/dev.ts'], {
      cwd: REPO,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: db.url,
        LANGGRAPH_CONFIG: path.join(dir, 'langgraph.json'),
        LOG_FORMAT: 'json',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    dev.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    dev.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const url = `http://127.0.0.1:${port}`;
    expect(await waitFor(() => reply(url).then((r) => r || undefined), 120_000, 200)).toBe('version one');
    // the console is served from its sources too, not 404 CONSOLE_NOT_BUILT
    const page = await fetch(`${url}/console`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<script[^>]+app\.js/);
    expect((await fetch(`${url}/console/app.js`)).status).toBe(200);
    expect(output).toMatch(/\[dev\] console bundled into /);
    writeFileSync(path.join(dir, 'hello.ts'), graphSource('version two'));
    expect(await waitFor(async () => ((await reply(url)) === 'version two' ? 'version two' : undefined), 120_000, 200)).toBe('version two');
    expect(output).toMatch(/\[dev\] .*hello\.ts changed: restarting/);
    expect(builtMain()).toBe(builtBefore); // served from the sources: no build was written
  }, 300_000);
});
