/* global process */
// node run-reference.mjs <port> <langgraph.json>: the reference LangGraph server (@langchain/langgraph-api, from npm)
// on a langgraph.json, in memory, as `langgraphjs dev` serves it; stops on SIGTERM. Its working directory (where it
// keeps its state, `.langgraph_api/`) is a fresh temporary one, so servers started in parallel on the same config
// share nothing; the config's relative paths are resolved against the config's folder first.
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';

import { spawnServer } from '@langchain/langgraph-api';

const [port, configArg] = process.argv.slice(2);
const configPath = resolve(configArg);
const base = dirname(configPath);
const config = JSON.parse(await readFile(configPath, 'utf-8'));
const cwd = mkdtempSync(join(tmpdir(), 'langgraph-reference-'));
// the reference joins its working directory and a module's path: relative to the temporary directory, then
const absolute = (spec) => (typeof spec === 'string' && spec.startsWith('.') ? relative(cwd, resolve(base, spec)) : spec);
const absoluteAll = (record) => Object.fromEntries(Object.entries(record ?? {}).map(([k, v]) => [k, absolute(v)]));
config.graphs = absoluteAll(config.graphs);
if (config.ui) config.ui = absoluteAll(config.ui);
if (config.http?.app) config.http.app = absolute(config.http.app);
if (config.auth?.path) config.auth.path = absolute(config.auth.path);
if (typeof config.env === 'string' && !isAbsolute(config.env)) config.env = resolve(base, config.env);
const server = await spawnServer(
  { port, nJobsPerWorker: '10', host: '127.0.0.1' },
  { config, env: typeof config.env === 'object' ? config.env : {}, hostUrl: 'https://smith.langchain.com' },
  { pid: process.pid, projectCwd: cwd },
);
process.once('SIGTERM', () => server.kill('SIGTERM'));
process.once('exit', () => rmSync(cwd, { recursive: true, force: true }));
