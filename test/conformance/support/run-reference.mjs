/* global process */
// node run-reference.mjs <port> <langgraph.json>: the reference LangGraph server (@langchain/langgraph-api, from npm)
// on a langgraph.json, in memory, as `langgraphjs dev` serves it; stops on SIGTERM.
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { spawnServer } from '@langchain/langgraph-api';

const [port, configArg] = process.argv.slice(2);
const configPath = resolve(configArg);
const config = JSON.parse(await readFile(configPath, 'utf-8'));
const server = await spawnServer(
  { port, nJobsPerWorker: '10', host: '127.0.0.1' },
  { config, env: config.env ?? {}, hostUrl: 'https://smith.langchain.com' },
  { pid: process.pid, projectCwd: dirname(configPath) },
);
process.once('SIGTERM', () => server.kill('SIGTERM'));
