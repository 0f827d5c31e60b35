import os from 'node:os';

import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { z } from 'zod';

import { planSandbox, type RunResult, runSandboxed, type SandboxConfig, type SandboxLimits, type SandboxPlan } from './python-sandbox';
import { ToolError } from './tool-error';
import type { Availability } from './types';

/**
 * python_repl runs model-written Python inside a bubblewrap sandbox (see python-sandbox.ts). The tool is
 * off unless enabled, and unavailable (with the reason) when the sandbox cannot be set up: it never runs
 * code without it.
 */
export interface PythonReplOptions {
  /** Off unless explicitly `true`: running model-written code is an operator decision. */
  enabled?: boolean;
  /** Absolute path of the interpreter; must resolve inside /usr (the only program tree the sandbox mounts). */
  pythonPath?: string;
  /** Absolute path of bubblewrap. Default `/usr/bin/bwrap`. */
  bwrapPath?: string;
  /** Absolute path of util-linux `prlimit` (inside /usr). Default `/usr/bin/prlimit`. */
  prlimitPath?: string;
  /** Wall-clock limit; the whole sandbox is SIGKILLed when it expires. Default 10 s. */
  timeoutMs?: number;
  /** RLIMIT_CPU per process. Default: the timeout rounded up, plus one second. */
  cpuSeconds?: number;
  /** RLIMIT_AS (address space) per process. Default 512 MB. */
  memoryLimitMb?: number;
  /** RLIMIT_FSIZE, largest file the code may write. Default 16 MB. */
  maxFileSizeMb?: number;
  /** Size of the private, memory-backed /tmp (the only writable directory besides /dev/shm). Default 64 MB. */
  tmpSizeMb?: number;
  /**
   * RLIMIT_NPROC counted inside the sandbox's user namespace (python itself and threads included).
   * Default 16. Worst-case memory of one call is about maxProcesses × memoryLimitMb + tmpSizeMb + 8 MB /dev/shm.
   */
  maxProcesses?: number;
  /** RLIMIT_NOFILE. Default 256. */
  maxOpenFiles?: number;
  /** Cap on each of stdout and stderr; the rest is dropped with a note. Default 16 KB. */
  maxOutputBytes?: number;
  /** First uid of the host uid pool bubblewrap runs as when the service is root. Default 1,950,000,000. */
  hostUidBase?: number;
}

const DEFAULTS = {
  pythonPath: '/usr/bin/python3',
  bwrapPath: '/usr/bin/bwrap',
  prlimitPath: '/usr/bin/prlimit',
  timeoutMs: 10_000,
  memoryLimitMb: 512,
  maxFileSizeMb: 16,
  tmpSizeMb: 64,
  shmSizeMb: 8,
  maxProcesses: 16,
  maxOpenFiles: 256,
  maxOutputBytes: 16 * 1024,
  hostUidBase: 1_950_000_000,
};
const MB = 1024 * 1024;
const MAX_CODE_CHARS = 20_000;
const STDERR_TAIL = 2000;

function sandboxConfig(options: PythonReplOptions): SandboxConfig {
  return {
    bwrapPath: options.bwrapPath ?? DEFAULTS.bwrapPath,
    pythonPath: options.pythonPath ?? DEFAULTS.pythonPath,
    prlimitPath: options.prlimitPath ?? DEFAULTS.prlimitPath,
    hostUidBase: options.hostUidBase ?? DEFAULTS.hostUidBase,
  };
}

export function sandboxLimits(options: PythonReplOptions): SandboxLimits {
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULTS.maxOutputBytes;
  return {
    timeoutMs,
    cpuSeconds: options.cpuSeconds ?? Math.ceil(timeoutMs / 1000) + 1,
    memoryBytes: (options.memoryLimitMb ?? DEFAULTS.memoryLimitMb) * MB,
    fileSizeBytes: (options.maxFileSizeMb ?? DEFAULTS.maxFileSizeMb) * MB,
    tmpBytes: (options.tmpSizeMb ?? DEFAULTS.tmpSizeMb) * MB,
    shmBytes: DEFAULTS.shmSizeMb * MB,
    maxProcesses: options.maxProcesses ?? DEFAULTS.maxProcesses,
    maxOpenFiles: options.maxOpenFiles ?? DEFAULTS.maxOpenFiles,
    maxOutputBytes,
    killAfterOutputBytes: Math.max(MB, 8 * maxOutputBytes),
  };
}

function resolvePlan(options: PythonReplOptions): SandboxPlan | { error: string } {
  if (options.enabled !== true) return { error: 'python_repl is disabled (enable it explicitly in the tool configuration)' };
  return planSandbox(sandboxConfig(options), sandboxLimits(options));
}

export function pythonReplAvailability(options: PythonReplOptions = {}): Availability {
  const plan = resolvePlan(options);
  return 'error' in plan ? { available: false, reason: plan.error } : { available: true };
}

function withNote(text: string, dropped: number): string {
  return dropped > 0 ? `${text}\n[output truncated: ${dropped} more bytes not shown]` : text;
}

function tail(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(-max)}`;
}

/** bubblewrap's init exits with 128 + n when the code died of signal n. */
function signalOfExitCode(code: number | null): string | undefined {
  if (code === null || code <= 128) return undefined;
  return Object.entries(os.constants.signals).find(([, n]) => n === code - 128)?.[0];
}

/** Turns a finished run into the tool result, or a ToolError for timeouts and failures. */
export function formatRun(r: RunResult, limits: Pick<SandboxLimits, 'timeoutMs' | 'killAfterOutputBytes'>): string {
  const stdout = withNote(r.stdout, r.stdoutDropped).trimEnd();
  if (r.outputLimitHit) {
    const partial = stdout ? `\nFirst output:\n${tail(stdout, STDERR_TAIL)}` : '';
    throw new ToolError(`python_repl: the code printed more than ${limits.killAfterOutputBytes} bytes and was killed${partial}`);
  }
  if (r.timedOut) {
    const partial = stdout ? `\nOutput before the timeout:\n${tail(stdout, STDERR_TAIL)}` : '';
    throw new ToolError(`python_repl: execution timed out after ${limits.timeoutMs / 1000} s and was killed${partial}`);
  }
  if (r.exitCode !== 0) {
    const signal = r.signal ?? signalOfExitCode(r.exitCode);
    const how = signal ? `was killed by ${signal} (a CPU, memory or other resource limit?)` : `exited with code ${r.exitCode}`;
    const stderr = tail(withNote(r.stderr, r.stderrDropped).trim(), STDERR_TAIL);
    const out = stdout ? `\nstdout:\n${tail(stdout, STDERR_TAIL)}` : '';
    throw new ToolError(`python_repl: the code ${how}${stderr ? `:\n${stderr}` : ''}${out}`);
  }
  return stdout || '(no output: use print() to show values)';
}

/** Runs `code` in the sandbox and returns the raw result (exit status, capped output, host uid used). */
export async function executePython(
  code: string,
  options: PythonReplOptions,
  signal?: AbortSignal,
  onSpawn?: (hostUid: number | undefined) => void,
): Promise<RunResult> {
  const plan = resolvePlan(options);
  if ('error' in plan) throw new ToolError(`python_repl is unavailable: ${plan.error}`);
  if (!code.trim()) throw new ToolError('python_repl: code is empty');
  if (code.length > MAX_CODE_CHARS) throw new ToolError(`python_repl: code longer than ${MAX_CODE_CHARS} characters`);
  signal?.throwIfAborted();
  return runSandboxed(code, plan, sandboxLimits(options), signal, onSpawn);
}

export async function runPython(code: string, options: PythonReplOptions, signal?: AbortSignal): Promise<string> {
  const limits = sandboxLimits(options);
  return formatRun(await executePython(code, options, signal), limits);
}

export function createPythonReplTool(options: PythonReplOptions): StructuredToolInterface {
  const seconds = (options.timeoutMs ?? DEFAULTS.timeoutMs) / 1000;
  return tool(async ({ code }: { code: string }, config) => runPython(code, options, config?.signal), {
    name: 'python_repl',
    description:
      'Runs Python 3 code in an isolated sandbox and returns what it prints (the value of a final bare ' +
      'expression is printed too). No network access, no files of the host, no persistent state between calls, ' +
      `${seconds} s time limit, limited memory and a small scratch /tmp; only the standard library is guaranteed. ` +
      'Use for calculations, data processing and checks.',
    schema: z.object({
      code: z.string().min(1).max(MAX_CODE_CHARS).describe('Python 3 source code; use print() to output results'),
    }),
  });
}
