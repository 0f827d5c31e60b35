import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import {
  accessSync,
  constants,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { Client } from 'pg';

import { buildOnce } from '../support/build-once';
import { createTestDatabase, type TestDatabase } from '../support/infra';
import { freePort } from '../support/main-process';
import { ScriptedModelServer } from '../support/model-server';
import { http, waitFor } from '../support/test-app';

const REPO = path.resolve(__dirname, '../..');
const EXAMPLE = path.join(REPO, 'examples/nest-host');
const run = promisify(execFile);

/** The Nest and TypeORM a host brings; the rest of examples/nest-host/package.json stays as it is. */
const COMBINATIONS = [
  {
    name: 'Nest 10, @nestjs/typeorm 10, TypeORM 0.3',
    versions: {
      '@nestjs/common': '^10.4.0',
      '@nestjs/core': '^10.4.0',
      '@nestjs/platform-express': '^10.4.0',
      '@nestjs/typeorm': '^10.0.2',
      typeorm: '^0.3.20',
    },
    majors: { '@nestjs/core': '10.', '@nestjs/common': '10.', '@nestjs/typeorm': '10.', typeorm: '0.3.' },
    // the host's own TypeORM data source (DATABASE_URL), handed to the service; a model calls the host's tool
    database: 'host-data-source',
  },
  {
    name: 'Nest 11, @nestjs/typeorm 11, TypeORM 1.x',
    versions: {
      '@nestjs/common': '^11.1.0',
      '@nestjs/core': '^11.1.0',
      '@nestjs/platform-express': '^11.1.0',
      '@nestjs/typeorm': '^11.0.0',
      typeorm: '^1.1.1',
    },
    majors: { '@nestjs/core': '11.', '@nestjs/common': '11.', '@nestjs/typeorm': '11.', typeorm: '1.' },
    // the embedded Postgres and no model: the orders agent of docs/embedding.md answers by rule
    database: 'embedded',
  },
] as const;

type Combination = (typeof COMBINATIONS)[number];

/**
 * Where the hosts are installed: /dev/shm (memory) where there is one — two installs of some 370 MB each, whose
 * writing to a disk costs more system time than the rest of the install — else the temporary directory.
 */
function scratchDir(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

/**
 * The library as a host installs it: `npm run build` + `npm pack`, then examples/nest-host (docs/embedding.md's embed
 * snippet, a `nest new --strict` tsconfig) installed from npm beside each supported Nest / TypeORM pair — both
 * installs at once, through the user's npm cache (`--prefer-offline`) — type-checked, compiled and started.
 */
describe('examples/nest-host against the packed package', () => {
  const model = new ScriptedModelServer();
  const hosts = new Map<Combination, string>();
  /** each host's `tsc -p tsconfig.json`, started as soon as its install is done (beside the other install) */
  const compiled = new Map<Combination, Promise<unknown>>();
  let work: string;
  let tgz = '';
  let db: TestDatabase;

  beforeAll(async () => {
    await model.start();
    db = await createTestDatabase('nest_host');
    work = mkdtempSync(path.join(scratchDir(), 'nest-host-'));
    buildOnce();
    execFileSync('npm', ['pack', '--pack-destination', work], { cwd: REPO, stdio: 'pipe' });
    tgz = path.join(
      work,
      readdirSync(work).find((f) => f.endsWith('.tgz'))!,
    );
    await Promise.all(
      COMBINATIONS.map(async (combination, i) => {
        const host = path.join(work, `host-${i}`);
        mkdirSync(host);
        const pkg = JSON.parse(readFileSync(path.join(EXAMPLE, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
        Object.assign(pkg.dependencies, combination.versions, { 'agent-orchestrator': `file:${tgz}` });
        writeFileSync(path.join(host, 'package.json'), JSON.stringify(pkg, null, 2));
        for (const f of ['src', 'tsconfig.json']) cpSync(path.join(EXAMPLE, f), path.join(host, f), { recursive: true });
        await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: host });
        hosts.set(combination, host);
        const compiling = run(process.execPath, [path.join(host, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: host });
        compiling.catch(() => undefined); // awaited, and so reported, by the compile test
        compiled.set(combination, compiling);
      }),
    );
  }, 360_000);

  afterAll(async () => {
    await model.stop();
    await db?.drop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('packs only the build, with the exports a host resolves', () => {
    const entries = execFileSync('tar', ['-tzf', tgz], { encoding: 'utf8' }).trim().split('\n');
    expect([...new Set(entries.map((e) => e.split('/')[1]))].sort()).toEqual(['LICENSE', 'README.md', 'dist', 'package.json']);
    const host = hosts.get(COMBINATIONS[0])!;
    expect(require.resolve('agent-orchestrator', { paths: [host] })).toBe(path.join(host, 'node_modules/agent-orchestrator/dist/index.js'));
  });

  describe.each(COMBINATIONS)('$name', (combination) => {
    const host = () => hosts.get(combination)!;

    it("installs beside the host's Nest and TypeORM, without a copy of its own", () => {
      // one `npm ls` for all of them: every line it prints is a copy of one of these packages
      const names = Object.keys(combination.majors);
      const lines = execFileSync('npm', ['ls', '--all', '--parseable', ...names], { cwd: host(), encoding: 'utf8' })
        .trim()
        .split('\n');
      const copiesOf = (name: string) => lines.filter((l) => l.endsWith(`${path.sep}node_modules${path.sep}${name}`));
      expect(lines.filter((l) => !names.some((name) => copiesOf(name).includes(l)))).toEqual([]);
      for (const [name, major] of Object.entries(combination.majors)) {
        const copies = copiesOf(name);
        expect([...new Set(copies)]).toEqual([path.join(host(), 'node_modules', name)]);
        const version = (JSON.parse(readFileSync(path.join(copies[0], 'package.json'), 'utf8')) as { version: string }).version;
        expect(version.startsWith(major)).toBe(true);
      }
      // an optional peer: not installed for a host without it, so these hosts run the service without it
      expect(existsSync(path.join(host(), 'node_modules/@nestjs/swagger'))).toBe(false);
    });

    it('type-checks and compiles, the host handing the service its own DataSource', async () => {
      await compiled.get(combination); // `tsc -p tsconfig.json`, started after the install (beforeAll); rejects on an error
      expect(readdirSync(path.join(host(), 'dist'))).toContain('main.js');
    });

    it('runs the shipped migration command on its TypeORM (agent-orchestrator-migrate)', async () => {
      const fresh = await createTestDatabase('nest_host_migrate');
      try {
        const pkg = JSON.parse(readFileSync(path.join(host(), 'node_modules/agent-orchestrator/package.json'), 'utf8')) as {
          bin: Record<string, string>;
        };
        const bin = path.join(host(), 'node_modules/agent-orchestrator', pkg.bin['agent-orchestrator-migrate']);
        const migrate = () =>
          execFileSync(process.execPath, [bin], {
            cwd: host(),
            env: { PATH: process.env.PATH, DATABASE_URL: fresh.url },
            encoding: 'utf8',
          });
        expect(migrate()).toMatch(/^applied: \w+\d{13}/);
        expect(migrate().trim()).toBe('up to date');
      } finally {
        await fresh.drop();
      }
    });

    if (combination.database === 'host-data-source') {
      it("answers through the host's controller with a model calling the host's tool, on the host's data source", async () => {
        const app = await startHost(host(), { DATABASE_URL: db.url, LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'scripted' });
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
          // the turn's checkpoints went to the same database (LangGraph's PostgresSaver on the service's pool)
          const result = await http(app.url, 'GET', `/agents/v1/sessions/${res.body.sessionId}/result`);
          expect(result.body).toMatchObject({ agent: 'orders', response: 'Order A-17 has shipped with DHL.' });
          expect(await checkpointsOf(res.body.sessionId)).toBeGreaterThan(0);
          // the service's error format on its routes; the host's routes keep Nest's
          const bad = await http(app.url, 'POST', '/agents/v1/chat', { message: 'x', agent: 'nope' });
          expect(bad.status).toBe(400);
          expect(bad.body.error).toMatchObject({ code: 'UNKNOWN_AGENT', details: { valid_agents: ['react', 'orders'] } });
          const hostRoute = await http(app.url, 'GET', '/support/nothing-here');
          expect(hostRoute.status).toBe(404);
          expect(hostRoute.body).toMatchObject({ statusCode: 404 });
        } finally {
          await app.stop();
        }
      }, 120_000);
    } else {
      it('answers without a model, on the embedded Postgres: the orders agent by rule', async () => {
        const app = await startHost(host(), { DATA_DIR: path.join(host(), 'data') });
        try {
          const res = await http(app.url, 'POST', '/support/ask', { question: 'Where is my order A-17?' });
          expect(res.status).toBe(201);
          expect(res.body).toMatchObject({ answer: 'Order A-17: shipped with DHL.' });
          const unknown = await http(app.url, 'POST', '/support/ask', { question: 'And Z-99?', sessionId: res.body.sessionId });
          expect(unknown.body).toMatchObject({ answer: 'There is no order Z-99.', sessionId: res.body.sessionId });
          // the same agent and tool are in the service's catalogue, mounted under the host's prefix
          const agents = await http(app.url, 'GET', '/agents/v1/agents');
          expect(agents.body.agents.map((a: { name: string }) => a.name).sort()).toEqual(['orders', 'react']);
          const tools = await http(app.url, 'GET', '/agents/v1/tools');
          expect(tools.body.tools.map((t: { name: string }) => t.name)).toContain('order_status');
        } finally {
          await app.stop();
        }
      }, 120_000);
    }
  });

  async function checkpointsOf(sessionId: string): Promise<number> {
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT count(*)::int AS n FROM langgraph.checkpoints WHERE thread_id LIKE $1', [
        `%${sessionId}`,
      ]);
      return (rows[0] as { n: number }).n;
    } finally {
      await client.end();
    }
  }

  async function startHost(host: string, env: Record<string, string | undefined>): Promise<{ url: string; stop(): Promise<void> }> {
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
      }, 90_000);
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
