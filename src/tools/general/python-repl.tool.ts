import os from 'node:os';

import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { z } from 'zod';

import { buildPreamble } from './python-preamble';
import { planSandbox, type RunAs, type RunResult, runSandboxed, type SandboxConfig, type SandboxPlan } from './python-sandbox';
import { ToolError } from './tool-error';
import type { Availability } from './types';

export interface PythonReplOptions {
  /** Off unless explicitly `true`: running model-written code is an operator decision. */
  enabled?: boolean;
  /** Interpreter name (looked up on `searchPath`) or absolute path. Default `python3`. */
  pythonPath?: string;
  /** PATH used to find python/unshare and given to the child. Default `/usr/local/bin:/usr/bin:/bin`. */
  searchPath?: string;
  /** Wall-clock limit; the whole process group is SIGKILLed when it expires. Default 10 s. */
  timeoutMs?: number;
  /** RLIMIT_AS (address space). Default 512 MB. */
  memoryLimitMb?: number;
  /** RLIMIT_FSIZE, largest file the code may write. Default 16 MB. */
  maxFileSizeMb?: number;
  /** RLIMIT_NPROC; only enforced by the kernel for non-root users (see `runAs`). Default 64. */
  maxProcesses?: number;
  /** Cap on each of stdout and stderr; the rest is dropped with a note. Default 16 KB. */
  maxOutputBytes?: number;
  /** `auto` (default): `unshare` network+PID namespaces if they work here, else the audit-hook preamble. */
  sandbox?: SandboxConfig['sandbox'];
  /**
   * User to run the code as. Default: nobody (65534:65534) when the service runs as root, else unchanged.
   * `null` keeps the current user.
   */
  runAs?: RunAs | null;
  /** Allow fork/exec/subprocess/ctypes inside the code. Default false (blocked by audit hooks). */
  allowSubprocess?: boolean;
  /** Parent of the per-run scratch directories. Default `os.tmpdir()`. */
  tmpDir?: string;
}

const DEFAULTS = {
  pythonPath: 'python3',
  searchPath: '/usr/local/bin:/usr/bin:/bin',
  timeoutMs: 10_000,
  memoryLimitMb: 512,
  maxFileSizeMb: 16,
  maxProcesses: 64,
  maxOutputBytes: 16 * 1024,
};
const MAX_CODE_CHARS = 20_000;
const STDERR_TAIL = 2000;

function sandboxConfig(options: PythonReplOptions): SandboxConfig {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  return {
    pythonPath: options.pythonPath ?? DEFAULTS.pythonPath,
    searchPath: options.searchPath ?? DEFAULTS.searchPath,
    sandbox: options.sandbox ?? 'auto',
    runAs: options.runAs !== undefined ? options.runAs : isRoot ? { uid: 65534, gid: 65534 } : null,
  };
}

function resolvePlan(options: PythonReplOptions): SandboxPlan | { error: string } {
  if (options.enabled !== true) return { error: 'python_repl is disabled (enable it explicitly in the tool configuration)' };
  return planSandbox(sandboxConfig(options));
}

export function pythonReplAvailability(options: PythonReplOptions = {}): Availability {
  const plan = resolvePlan(options);
  return 'error' in plan ? { available: false, reason: plan.error } : { available: true };
}

/** Which isolation the tool would use with these options (`unshare` or `preamble`), or why it cannot run. */
export function pythonReplSandboxMode(options: PythonReplOptions): SandboxPlan['mode'] | { error: string } {
  const plan = resolvePlan(options);
  return 'error' in plan ? plan : plan.mode;
}

function withNote(text: string, dropped: number): string {
  return dropped > 0 ? `${text}\n[output truncated: ${dropped} more bytes not shown]` : text;
}

function tail(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(-max)}`;
}

/** Turns a finished run into the tool result, or a ToolError for timeouts and failures. */
export function formatRun(r: RunResult, timeoutMs: number): string {
  const stdout = withNote(r.stdout, r.stdoutDropped).trimEnd();
  if (r.timedOut) {
    const partial = stdout ? `\nOutput before the timeout:\n${tail(stdout, STDERR_TAIL)}` : '';
    throw new ToolError(`python_repl: execution timed out after ${timeoutMs / 1000} s and was killed${partial}`);
  }
  if (r.exitCode !== 0) {
    const how = r.signal ? `was killed by ${r.signal} (memory or resource limit?)` : `exited with code ${r.exitCode}`;
    const stderr = tail(withNote(r.stderr, r.stderrDropped).trim(), STDERR_TAIL);
    const out = stdout ? `\nstdout:\n${tail(stdout, STDERR_TAIL)}` : '';
    throw new ToolError(`python_repl: the code ${how}${stderr ? `:\n${stderr}` : ''}${out}`);
  }
  return stdout || '(no output: use print() to show values)';
}

export async function runPython(code: string, options: PythonReplOptions, signal?: AbortSignal): Promise<string> {
  const plan = resolvePlan(options);
  if ('error' in plan) throw new ToolError(`python_repl is unavailable: ${plan.error}`);
  if (!code.trim()) throw new ToolError('python_repl: code is empty');
  if (code.length > MAX_CODE_CHARS) throw new ToolError(`python_repl: code longer than ${MAX_CODE_CHARS} characters`);
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const preamble = buildPreamble({
    memoryBytes: (options.memoryLimitMb ?? DEFAULTS.memoryLimitMb) * 1024 * 1024,
    fileSizeBytes: (options.maxFileSizeMb ?? DEFAULTS.maxFileSizeMb) * 1024 * 1024,
    maxProcesses: options.maxProcesses ?? DEFAULTS.maxProcesses,
    blockNetwork: plan.mode !== 'unshare',
    blockSubprocess: options.allowSubprocess !== true,
  });
  const limits = {
    timeoutMs,
    maxOutputBytes: options.maxOutputBytes ?? DEFAULTS.maxOutputBytes,
    tmpDir: options.tmpDir ?? os.tmpdir(),
  };
  return formatRun(await runSandboxed(code, preamble, plan, limits, signal), timeoutMs);
}

export function createPythonReplTool(options: PythonReplOptions): StructuredToolInterface {
  const seconds = (options.timeoutMs ?? DEFAULTS.timeoutMs) / 1000;
  return tool(async ({ code }: { code: string }, config) => runPython(code, options, config?.signal), {
    name: 'python_repl',
    description:
      'Runs Python 3 code in an isolated process and returns what it prints (the value of a final bare ' +
      `expression is printed too). No network access, no persistent state between calls, ${seconds} s time limit, ` +
      'limited memory; only the standard library is guaranteed. Use for calculations, data processing and checks.',
    schema: z.object({
      code: z.string().min(1).max(MAX_CODE_CHARS).describe('Python 3 source code; use print() to output results'),
    }),
  });
}
