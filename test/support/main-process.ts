import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { DB_VIA_ENV } from './infra';
import { waitFor } from './test-app';

export { freePort } from './infra';

const REPO = path.resolve(__dirname, '../..');

/** `node -r swc-register src/main.ts`: the same start-up without a build (for tests of start-up itself) */
export const FROM_SOURCE = ['-r', './test/support/swc-register.js', 'src/main.ts'] as const;

export type LogLine = Record<string, any> & { pid: number; msg?: string };

/**
 * The shipped command, `node dist/main.js` (build it first), as a process of its own: its JSON log lines
 * (every API process's, each with its pid), its child processes, its exit.
 */
export class MainProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly lines: LogLine[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private partial = '';
  private text = '';

  /** `command`: node's arguments — the shipped build by default, or e.g. the sources through swc (FROM_SOURCE) */
  constructor(port: number, env: Record<string, string>, command: readonly string[] = ['dist/main.js']) {
    this.url = `http://127.0.0.1:${port}`;
    this.child = spawn(process.execPath, [...command], {
      cwd: REPO,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        PORT: String(port),
        HOST: '127.0.0.1',
        ...DB_VIA_ENV,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk: Buffer) => this.read(chunk));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.text += chunk.toString('utf8')));
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** The first line (from index `from` on) that matches, once it is written. */
  waitForLine(match: (l: LogLine) => boolean, timeoutMs = 30_000, from = 0): Promise<LogLine> {
    return waitFor(async () => {
      const found = this.lines.slice(from).find(match);
      if (found) return found;
      if (this.child.exitCode !== null || this.child.signalCode !== null) throw new Error(`dist/main.js exited:\n${this.output()}`);
      return undefined;
    }, timeoutMs);
  }

  /** The live processes whose parent this one is. */
  children(): number[] {
    return readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map(Number)
      .filter((pid) => procStat(pid)?.ppid === this.pid);
  }

  output(): string {
    return (this.lines.map((l) => JSON.stringify(l)).join('\n') + '\n' + this.text).slice(-20_000);
  }

  private read(chunk: Buffer): void {
    const text = this.partial + chunk.toString('utf8');
    const complete = text.split('\n');
    this.partial = complete.pop()!;
    for (const line of complete) {
      try {
        this.lines.push(JSON.parse(line) as LogLine);
      } catch {
        this.text += `${line}\n`;
      }
    }
  }
}

/** State and parent of a process from /proc (undefined once it is gone; zombies count as gone). */
function procStat(pid: number): { state: string; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return state === 'Z' ? undefined : { state, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

export function processAlive(pid: number): boolean {
  return procStat(pid) !== undefined;
}
