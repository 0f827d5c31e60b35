import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { createTestDatabase, type TestDatabase } from '../support/infra';
import { freePort } from '../support/main-process';
import { ScriptedModelServer } from '../support/model-server';
import { http, waitFor } from '../support/test-app';

const REPO = path.resolve(__dirname, '../..');
const EXAMPLE = path.join(REPO, 'examples/nest-host');

/**
 * The library build as a host installs it: `npm run build` + `npm pack`, the tarball unpacked into a fresh
 * project's node_modules (its other dependencies linked from this repo's: no network), examples/nest-host
 * type-checked and compiled against the package's exports, then started — its own agent and tool answer a
 * turn through its own controller, on the embedded Postgres and on a real one.
 */
describe('examples/nest-host against the packed package', () => {
  const model = new ScriptedModelServer();
  let host: string;
  let db: TestDatabase;

  beforeAll(async () => {
    await model.start();
    db = await createTestDatabase('nest_host');
    const work = mkdtempSync(path.join(tmpdir(), 'nest-host-'));
    host = path.join(work, 'host');
    execFileSync('npm', ['run', '-s', 'build'], { cwd: REPO, stdio: 'pipe' });
    execFileSync('npm', ['pack', '--pack-destination', work], { cwd: REPO, stdio: 'pipe' });
    const tgz = readdirSync(work).find((f) => f.endsWith('.tgz'))!;
    const pkg = path.join(host, 'node_modules/agent-orchestrator');
    mkdirSync(pkg, { recursive: true });
    execFileSync('tar', ['-xzf', path.join(work, tgz), '-C', pkg, '--strip-components=1']);
    for (const entry of readdirSync(path.join(REPO, 'node_modules'))) {
      if (!entry.startsWith('.') && entry !== 'agent-orchestrator')
        symlinkSync(path.join(REPO, 'node_modules', entry), path.join(host, 'node_modules', entry));
    }
    for (const f of ['src', 'tsconfig.json', 'package.json']) cpSync(path.join(EXAMPLE, f), path.join(host, f), { recursive: true });
    // type-checks the example against the package's declared types (exports "types"), then emits dist/
    execFileSync(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
      cwd: host,
      stdio: 'pipe',
    });
  }, 180_000);

  afterAll(async () => {
    await model.stop();
    await db?.drop();
    if (host) rmSync(path.dirname(host), { recursive: true, force: true });
  });

  it('packs only the build, with the exports a host resolves', () => {
    const pkg = path.join(host, 'node_modules/agent-orchestrator');
    const resolved = require.resolve('agent-orchestrator', { paths: [host] });
    expect(resolved).toBe(path.join(pkg, 'dist/index.js'));
    expect(readdirSync(pkg).sort()).toEqual(['README.md', 'dist', 'package.json']);
  });

  it('ships a migration command a host runs itself (agent-orchestrator-migrate)', async () => {
    const fresh = await createTestDatabase('nest_host_migrate');
    try {
      const bin = path.join(host, 'node_modules/agent-orchestrator', readPackageBin());
      const migrate = () =>
        execFileSync(process.execPath, [bin], { env: { PATH: process.env.PATH, DATABASE_URL: fresh.url }, encoding: 'utf8' });
      expect(migrate()).toMatch(/^applied: \w+\d{13}/);
      expect(migrate().trim()).toBe('up to date');
    } finally {
      await fresh.drop();
    }
  });

  function readPackageBin(): string {
    const pkg = JSON.parse(readFileSync(path.join(host, 'node_modules/agent-orchestrator/package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    return pkg.bin['agent-orchestrator-migrate'];
  }

  for (const target of ['embedded', 'postgres'] as const) {
    it(`answers through the host's own controller, agent and tool (${target} database)`, async () => {
      const database = target === 'postgres' ? { DATABASE_URL: db.url } : { DATA_DIR: path.join(path.dirname(host), 'data') };
      const app = await startHost({ ...database, LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'scripted' });
      try {
        model.reset();
        model.enqueue(
          { toolCalls: [{ name: 'order_status', args: { orderId: 'A-17' } }] },
          { content: 'Order A-17 has shipped with DHL.' },
        );
        const res = await http(app.url, 'POST', '/support/ask', { question: 'Where is my order A-17?' });
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ answer: 'Order A-17 has shipped with DHL.', tools: ['order_status'] });
        // the tool ran in the host with its injected service: its output went back to the model
        const toolMessage = model.requests[1].messages.find((m) => m.role === 'tool');
        expect(JSON.stringify(toolMessage?.content)).toContain('shipped');
        // the same agent and tool are in the service's catalogue, mounted under the host's prefix
        const agents = await http(app.url, 'GET', '/agents/v1/agents');
        expect(agents.body.agents.map((a: { name: string }) => a.name).sort()).toEqual(['orders', 'react']);
        const tools = await http(app.url, 'GET', '/agents/v1/tools');
        expect(tools.body.tools.map((t: { name: string }) => t.name)).toContain('order_status');
        const result = await http(app.url, 'GET', `/agents/v1/sessions/${res.body.sessionId}/result`);
        expect(result.body).toMatchObject({ agent: 'orders', response: 'Order A-17 has shipped with DHL.' });
        // the service's error format on its routes; the host's routes keep Nest's
        const bad = await http(app.url, 'POST', '/agents/v1/chat', { message: 'x', agent: 'nope' });
        expect(bad.status).toBe(400);
        expect(bad.body.error).toMatchObject({ code: 'UNKNOWN_AGENT', details: { valid_agents: ['react', 'orders'] } });
        expect(bad.body.detail).toBeUndefined();
        const hostRoute = await http(app.url, 'GET', '/support/nothing-here');
        expect(hostRoute.status).toBe(404);
        expect(hostRoute.body).toMatchObject({ statusCode: 404 });
      } finally {
        await app.stop();
      }
    }, 90_000);
  }

  async function startHost(env: Record<string, string | undefined>): Promise<{ url: string; stop(): Promise<void> }> {
    const port = await freePort();
    const child: ChildProcess = spawn(process.execPath, ['dist/main.js'], {
      cwd: host,
      env: { PATH: process.env.PATH, PORT: String(port), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitFor(async () => {
        if (child.exitCode !== null) throw new Error(`the host exited (${child.exitCode}):\n${output}`);
        return /listening on/.test(output) ? true : undefined;
      }, 60_000);
    } catch (err) {
      child.kill('SIGKILL');
      throw err;
    }
    return {
      url,
      stop: async () => {
        child.kill('SIGTERM');
        await exited;
      },
    };
  }
});
