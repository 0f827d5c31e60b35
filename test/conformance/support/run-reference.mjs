/* global process */
// node run-reference.mjs <port> <langgraph.json>: the reference LangGraph server (@langchain/langgraph-api, from npm)
// on a langgraph.json, in memory, as `langgraphjs dev` serves it; stops on SIGTERM. Its working directory (where it
// keeps its state, `.langgraph_api/`) is a fresh temporary one, so servers started in parallel on the same config
// share nothing.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';

import { spawnServer } from '@langchain/langgraph-api';

const [port, configArg] = process.argv.slice(2);
const configPath = resolve(configArg);
const base = dirname(configPath);
const config = JSON.parse(await readFile(configPath, 'utf-8'));
// the config's folder as the server sees it: the same path under a temporary directory, made of links to the
// entries of the folder and of each folder above it up to the project (the one with node_modules), so relative
// paths (`../x.mts`, ui files) and package imports resolve as in place; the server's own `.langgraph_api/` is not
// linked, so it is written there, apart
let root = base;
while (!existsSync(join(root, 'node_modules')) && dirname(root) !== root) root = dirname(root);
const tmp = mkdtempSync(join(tmpdir(), 'langgraph-reference-'));
const steps = relative(root, base).split(sep).filter(Boolean);
let from = root;
let cwd = tmp;
for (let i = 0; ; i++) {
  for (const entry of readdirSync(from)) if (entry !== steps[i] && entry !== '.langgraph_api') symlinkSync(join(from, entry), join(cwd, entry));
  if (i === steps.length) break;
  from = join(from, steps[i]);
  cwd = join(cwd, steps[i]);
  mkdirSync(cwd);
}
// the server's graphs see only the config's env: a test's own settings for its graphs (`CONFORMANCE_*`, such as the
// scripted model's URL) are passed along
const testEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('CONFORMANCE_')));
const server = await spawnServer(
  { port, nJobsPerWorker: '10', host: '127.0.0.1' },
  { config, env: { ...(typeof config.env === 'object' ? config.env : {}), ...testEnv }, hostUrl: 'https://smith.langchain.com' },
  { pid: process.pid, projectCwd: cwd },
);
process.once('SIGTERM', () => server.kill('SIGTERM'));
process.once('exit', () => rmSync(tmp, { recursive: true, force: true }));
