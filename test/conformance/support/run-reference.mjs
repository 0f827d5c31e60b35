/* global process */
// node run-reference.mjs <port> <langgraph.json>: the reference LangGraph server (@langchain/langgraph-api, from npm)
// on a langgraph.json, in memory, as `langgraphjs dev` serves it; stops on SIGTERM. Its working directory (where it
// keeps its state, `.langgraph_api/`) is a fresh temporary one, so servers started in parallel on the same config
// share nothing.
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

import { spawnServer } from '@langchain/langgraph-api';

const [port, configArg] = process.argv.slice(2);
const configPath = resolve(configArg);
const base = dirname(configPath);
const config = JSON.parse(await readFile(configPath, 'utf-8'));
// the config's folder as the server sees it: a temporary directory of links to its entries (the server's own
// `.langgraph_api/` is not linked, so it is written here, apart)
const cwd = mkdtempSync(join(tmpdir(), 'langgraph-reference-'));
for (const entry of readdirSync(base)) if (entry !== '.langgraph_api') symlinkSync(join(base, entry), join(cwd, entry));
const server = await spawnServer(
  { port, nJobsPerWorker: '10', host: '127.0.0.1' },
  { config, env: typeof config.env === 'object' ? config.env : {}, hostUrl: 'https://smith.langchain.com' },
  { pid: process.pid, projectCwd: cwd },
);
process.once('SIGTERM', () => server.kill('SIGTERM'));
process.once('exit', () => rmSync(cwd, { recursive: true, force: true }));
