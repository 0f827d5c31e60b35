import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { DB_VIA_ENV } from './infra';

const ROOT = path.join(__dirname, '..', '..');

/**
 * A real worker process (`src/worker.ts`, compiled on load by swc), for tests that kill it: `kill('SIGKILL')`
 * is a crash, `kill('SIGTERM')` a graceful stop. `exited` resolves with the exit code or signal.
 */
export class WorkerProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<number | string>;
  private output = '';

  private constructor(env: Record<string, string>, entry = 'worker.ts') {
    this.child = spawn(process.execPath, ['-r', path.join(__dirname, 'swc-register.js'), path.join(ROOT, 'src', entry)], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'log', ...DB_VIA_ENV, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString('utf8')).slice(-20_000);
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve(signal ?? code ?? -1)));
  }

  /** Starts a worker and waits until it consumes runs. */
  static start(env: Record<string, string>, timeoutMs = 30_000): Promise<WorkerProcess> {
    return WorkerProcess.launch(new WorkerProcess(env), 'consuming runs', timeoutMs);
  }

  /** The HTTP service (`src/main.ts`) as a process of its own; give it PORT. */
  static startApi(env: Record<string, string>, timeoutMs = 30_000): Promise<WorkerProcess> {
    return WorkerProcess.launch(new WorkerProcess(env, 'main.ts'), 'listening on', timeoutMs);
  }

  private static async launch(w: WorkerProcess, ready: string, timeoutMs: number): Promise<WorkerProcess> {
    const deadline = Date.now() + timeoutMs;
    while (!w.output.includes(ready)) {
      if (w.child.exitCode !== null || w.child.signalCode !== null) throw new Error(`worker exited at start:\n${w.output}`);
      if (Date.now() > deadline) {
        w.child.kill('SIGKILL');
        throw new Error(`worker did not start within ${timeoutMs} ms:\n${w.output}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return w;
  }

  get pid(): number {
    return this.child.pid!;
  }

  get logs(): string {
    return this.output;
  }

  /** Resident set size in MB (Linux /proc). */
  rssMb(): number {
    try {
      const kb = Number(readFileSync(`/proc/${this.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? 0);
      return Math.round(kb / 1024);
    } catch {
      return 0;
    }
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  kill(signal: NodeJS.Signals): void {
    if (this.alive) this.child.kill(signal);
  }

  /** SIGKILL (if still running) and wait for the exit. */
  async stop(): Promise<void> {
    this.kill('SIGKILL');
    await this.exited;
  }
}
