import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

import { freePort } from '../../support/main-process';

/** The reference LangGraph server (`@langchain/langgraph-api` from npm, in memory) on a `langgraph.json`. */
export interface ReferenceServer {
  readonly url: string;
  stop(): Promise<void>;
}

const RUNNER = path.join(__dirname, 'run-reference.mjs');

export async function startReferenceServer(config: string, timeoutMs = 90_000): Promise<ReferenceServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [RUNNER, String(port), config], {
    // its own process group: the runner spawns the server (tsx) as a child of its own
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '', LANGGRAPH_CLI_NO_ANALYTICS: '1', LANGSMITH_TRACING: 'false', PORT: String(port) },
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, 5000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the reference server exited at start:\n${output.slice(-4000)}`);
    // /info: open on the platform even with a custom auth (which guards /ok)
    const ok = await fetch(`${url}/info`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { url, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the reference server did not answer within ${timeoutMs} ms:\n${output.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
