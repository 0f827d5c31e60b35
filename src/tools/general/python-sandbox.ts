import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, promises as fs, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { ToolError } from './tool-error';

/**
 * Process isolation for python_repl.
 *
 * - `unshare` mode (needs root or CAP_SYS_ADMIN): `unshare --net --pid --fork --kill-child` gives the
 *   process an empty network namespace (only a downed loopback: every connect fails) and its own PID
 *   namespace: when Python (PID 1 there) exits or is killed, the kernel kills everything it started.
 *   With `runAs`, `--setuid/--setgid` drop root before exec, which also makes RLIMIT_NPROC effective
 *   (the kernel never enforces it for root) and keeps root-only files (e.g. /proc/1/environ) unreadable.
 * - `preamble` mode (fallback): plain `python3 -I`; networking is refused by audit hooks in the preamble,
 *   which is best-effort only (ctypes/C extensions can bypass it). `runAs` uses spawn's uid/gid.
 *
 * In both modes: no shell, detached process group killed with SIGKILL on timeout/abort/exit, a fresh
 * scratch cwd removed afterwards, env reduced to PATH and LANG. There is no mount namespace: the code can
 * read any file its user can read, which is the main reason to use `runAs` when the service runs as root.
 */

export type SandboxMode = 'unshare' | 'preamble';

export interface RunAs {
  uid: number;
  gid: number;
}

export interface SandboxConfig {
  pythonPath: string;
  searchPath: string;
  sandbox: 'auto' | SandboxMode;
  runAs: RunAs | null;
}

export interface SandboxPlan {
  mode: SandboxMode;
  python: string;
  unshare?: string;
  runAs: RunAs | null;
  env: Record<string, string>;
}

export interface RunLimits {
  timeoutMs: number;
  maxOutputBytes: number;
  tmpDir: string;
}

export interface RunResult {
  stdout: string;
  stderr: string;
  /** Bytes dropped because the stream went over `maxOutputBytes`. */
  stdoutDropped: number;
  stderrDropped: number;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
}

export function findExecutable(name: string, searchPath: string): string | undefined {
  const candidates = name.includes('/')
    ? [name]
    : searchPath
        .split(':')
        .filter(Boolean)
        .map((dir) => path.join(dir, name));
  return candidates.find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

function launch(plan: SandboxPlan, pythonArgs: string[]): { command: string; args: string[]; uid?: number; gid?: number } {
  if (plan.mode === 'unshare' && plan.unshare) {
    const user = plan.runAs ? ['--setgid', String(plan.runAs.gid), '--setuid', String(plan.runAs.uid)] : [];
    return { command: plan.unshare, args: ['--net', '--pid', '--fork', '--kill-child', ...user, '--', plan.python, ...pythonArgs] };
  }
  return { command: plan.python, args: pythonArgs, uid: plan.runAs?.uid, gid: plan.runAs?.gid };
}

const plans = new Map<string, SandboxPlan>();

/** Finds Python and a working sandbox mode by running `python -I -c pass` through it once (cached on success). */
export function planSandbox(config: SandboxConfig): SandboxPlan | { error: string } {
  const key = JSON.stringify(config);
  const cached = plans.get(key);
  if (cached) return cached;
  const python = findExecutable(config.pythonPath, config.searchPath);
  if (!python) return { error: `python interpreter "${config.pythonPath}" not found on ${config.searchPath}` };
  const env = { PATH: config.searchPath, LANG: 'C.UTF-8' };
  const modes: SandboxMode[] = config.sandbox === 'auto' ? ['unshare', 'preamble'] : [config.sandbox];
  const failures: string[] = [];
  for (const mode of modes) {
    const unshare = mode === 'unshare' ? findExecutable('unshare', config.searchPath) : undefined;
    if (mode === 'unshare' && !unshare) {
      failures.push('unshare: not found');
      continue;
    }
    const plan: SandboxPlan = { mode, python, unshare, runAs: config.runAs, env };
    const { command, args, uid, gid } = launch(plan, ['-I', '-c', 'pass']);
    const probe = spawnSync(command, args, { env, uid, gid, cwd: os.tmpdir(), timeout: 15_000, encoding: 'utf8' });
    if (probe.status === 0) {
      plans.set(key, plan);
      return plan;
    }
    failures.push(`${mode}: ${(probe.stderr || probe.error?.message || `exit ${probe.status}`).trim().slice(0, 200)}`);
  }
  return { error: `no working python sandbox (${failures.join('; ')})` };
}

function collector(max: number) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  return {
    push(chunk: Buffer) {
      const room = Math.max(0, max - kept);
      if (room > 0) {
        const part = chunk.subarray(0, room);
        chunks.push(part);
        kept += part.length;
      }
      dropped += Math.max(0, chunk.length - room);
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
    dropped: () => dropped,
  };
}

/** Runs `preamble` (see python-preamble.ts) with `code` on stdin, in a fresh scratch directory. */
export async function runSandboxed(
  code: string,
  preamble: string,
  plan: SandboxPlan,
  limits: RunLimits,
  signal?: AbortSignal,
): Promise<RunResult> {
  const dir = await fs.mkdtemp(path.join(limits.tmpDir, 'python-repl-'));
  try {
    if (plan.runAs) await fs.chown(dir, plan.runAs.uid, plan.runAs.gid);
    return await new Promise<RunResult>((resolve, reject) => {
      const { command, args, uid, gid } = launch(plan, ['-I', '-c', preamble]);
      const child = spawn(command, args, { cwd: dir, env: plan.env, uid, gid, detached: true, stdio: 'pipe' });
      const out = collector(limits.maxOutputBytes);
      const err = collector(limits.maxOutputBytes);
      let timedOut = false;
      const killGroup = () => {
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup();
      }, limits.timeoutMs);
      signal?.addEventListener('abort', killGroup, { once: true });
      child.stdout.on('data', out.push);
      child.stderr.on('data', err.push);
      child.stdin.on('error', () => undefined); // EPIPE when the process dies before reading its code
      child.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(new ToolError(`python_repl could not start python: ${e.code ?? e.message}`));
      });
      child.on('exit', () => {
        killGroup(); // stragglers left in the process group
        // A descendant that escaped the group (setsid) could hold the pipes open forever: stop waiting.
        setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
        }, 1000).unref();
      });
      child.on('close', (exitCode, sig) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', killGroup);
        if (signal?.aborted) return reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        resolve({
          stdout: out.text(),
          stderr: err.text(),
          stdoutDropped: out.dropped(),
          stderrDropped: err.dropped(),
          exitCode,
          signal: sig,
          timedOut,
        });
      });
      child.stdin.end(code);
    });
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
