import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { createGeneralTools } from './index';
import { createPythonReplTool, executePython, pythonReplAvailability, type PythonReplOptions, runPython } from './python-repl.tool';
import { PYTHON_RUNNER } from './python-runner';
import { SANDBOX_UID } from './python-sandbox';
import { ToolError } from './tool-error';

/**
 * Behaviour of python_repl in its bubblewrap sandbox. The escape attempts (network, sockets, host files,
 * disk filling, fork and memory bombs) are in test/security/python-sandbox.spec.ts. These tests need
 * /usr/bin/bwrap (CI installs the Debian package); without it they fail rather than skip, because the tool
 * would be unavailable.
 */
const isRoot = process.getuid?.() === 0;

const pgrep = (args: string[]): number[] => {
  try {
    return execFileSync('pgrep', args, { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
};

/** Polls until no process of the host uid is left (the kernel tears the PID namespace down just after exit). */
async function processesGone(uid: number, timeoutMs = 2000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let left = pgrep(['-U', String(uid)]);
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    left = pgrep(['-U', String(uid)]);
  }
  return left;
}

describe('python_repl', () => {
  const opts = (extra: PythonReplOptions = {}): PythonReplOptions => ({ enabled: true, timeoutMs: 5000, ...extra });

  it('is available here (bubblewrap works on this machine)', () => {
    expect(pythonReplAvailability(opts())).toEqual({ available: true });
  });

  it('is off unless enabled', async () => {
    expect(pythonReplAvailability({})).toMatchObject({ available: false, reason: expect.stringMatching(/disabled/) });
    expect(pythonReplAvailability({ enabled: false }).available).toBe(false);
    await expect(runPython('print(1)', {})).rejects.toThrow(/disabled/);
    expect(createGeneralTools({}).tools.map((t) => t.name)).not.toContain('python_repl');
  });

  it('is unavailable, never unsandboxed, when bubblewrap is missing or does not work', async () => {
    const missing = opts({ bwrapPath: '/nonexistent/bwrap' });
    expect(pythonReplAvailability(missing)).toMatchObject({ available: false, reason: expect.stringMatching(/bubblewrap.*not found/) });
    await expect(runPython('print(1)', missing)).rejects.toThrow(/python_repl is unavailable: bubblewrap/);
    const { tools, unavailable } = createGeneralTools({ pythonRepl: missing });
    expect(tools.map((t) => t.name)).not.toContain('python_repl');
    expect(unavailable).toContainEqual({ name: 'python_repl', reason: expect.stringMatching(/bubblewrap/) });
    // a "bwrap" that exits 1 fails the probe run
    expect(pythonReplAvailability(opts({ bwrapPath: '/usr/bin/false' }))).toMatchObject({
      available: false,
      reason: expect.stringMatching(/sandbox does not work here/),
    });
  });

  it('only runs an interpreter from the /usr the sandbox mounts', () => {
    expect(pythonReplAvailability(opts({ pythonPath: 'python3' })).reason).toMatch(/absolute path/);
    expect(pythonReplAvailability(opts({ pythonPath: '/no/such/python3' })).reason).toMatch(/not found/);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'python-repl-test-'));
    try {
      const shim = path.join(dir, 'python3'); // like a pyenv shim under /root
      writeFileSync(shim, '#!/bin/sh\nexec /usr/bin/python3 "$@"\n', { mode: 0o755 });
      expect(pythonReplAvailability(opts({ pythonPath: shim })).reason).toMatch(/outside the \/usr the sandbox mounts/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs code, prints the final expression like a REPL, and keeps Korean text', async () => {
    const tool = createPythonReplTool(opts());
    await expect(tool.invoke({ code: 'x = 6 * 7\nprint("답:", x)\nx + 1' })).resolves.toBe('답: 42\n43');
    await expect(runPython('y = 1', opts())).resolves.toMatch(/no output/);
    await expect(
      runPython('import json, math, statistics\njson.dumps({"r": round(math.sqrt(2), 3), "m": statistics.mean([1, 2, 3])})', opts()),
    ).resolves.toBe('\'{"r": 1.414, "m": 2}\'');
  });

  it('returns errors with the traceback of the user code only', async () => {
    const err = await runPython('def f():\n    return 1 / 0\nf()', opts()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as Error).message).toMatch(/exited with code 1:[\s\S]*File "<python_repl>", line 2, in f[\s\S]*ZeroDivisionError/);
    expect((err as Error).message).not.toContain('File "<string>"');
    await expect(runPython('print(', opts())).rejects.toThrow(/SyntaxError/);
    await expect(runPython('x = 1\nx / 0', opts())).rejects.toThrow(/line 2, in <module>\n\s+x \/ 0[\s\S]*ZeroDivisionError/);
    await expect(runPython('import sys; print("partial"); sys.exit(3)', opts())).rejects.toThrow(
      /exited with code 3[\s\S]*stdout:\npartial/,
    );
  });

  it('runs as uid 65534 inside, in /tmp, at niceness 10, with a minimal environment and a pool uid on the host when root', async () => {
    process.env.PYTHON_REPL_TEST_SECRET = 'do-not-leak';
    try {
      const code = 'import os, json\nprint(json.dumps([os.getuid(), os.getgid(), os.getcwd(), dict(os.environ), os.nice(0)]))';
      const r = await executePython(code, opts());
      const [uid, gid, cwd, env, niceness] = JSON.parse(r.stdout) as [number, number, string, Record<string, string>, number];
      expect([uid, gid, cwd, niceness]).toEqual([SANDBOX_UID, SANDBOX_UID, '/tmp', 10]);
      expect(env).toEqual({ HOME: '/tmp', LANG: 'C.UTF-8', PATH: '/usr/bin:/bin', PWD: '/tmp', TMPDIR: '/tmp' });
      if (isRoot) expect(r.hostUid).toBeGreaterThanOrEqual(1_950_000_000);
      else expect(r.hostUid).toBeUndefined();
    } finally {
      delete process.env.PYTHON_REPL_TEST_SECRET;
    }
  });

  it('runs subprocesses inside the sandbox (they are contained, not forbidden)', async () => {
    const code = 'import subprocess\nprint(subprocess.run(["echo", "ok"], capture_output=True, text=True).stdout.strip())';
    await expect(runPython(code, opts())).resolves.toBe('ok');
  });

  it('kills the whole sandbox on timeout, including children', async () => {
    const started = Date.now();
    const code = 'import subprocess\nsubprocess.Popen(["sleep", "987.654"])\nprint("started")\nwhile True: pass';
    const r = await executePython(code, opts({ timeoutMs: 1000 }));
    expect(r.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(pgrep(['-f', 'sleep 987.654'])).toEqual([]);
    if (r.hostUid !== undefined) await expect(processesGone(r.hostUid)).resolves.toEqual([]);
    await expect(runPython(code, opts({ timeoutMs: 1000 }))).rejects.toThrow(/timed out after 1 s[\s\S]*started/);
  });

  it('the PID namespace kills descendants that left the process group when python exits', async () => {
    const code = 'import subprocess\nsubprocess.Popen(["setsid", "sleep", "987.321"])\nprint("ok")';
    const r = await executePython(code, opts());
    expect(r.stdout).toBe('ok\n');
    expect(pgrep(['-f', 'sleep 987.321'])).toEqual([]);
  });

  it('enforces the memory limit', async () => {
    await expect(runPython('b = bytearray(16 * 1024 * 1024)\nprint(len(b))', opts({ memoryLimitMb: 128 }))).resolves.toBe('16777216');
    await expect(runPython('b = bytearray(512 * 1024 * 1024)', opts({ memoryLimitMb: 128 }))).rejects.toThrow(/MemoryError/);
  });

  it('limits the size of files the code writes', async () => {
    const code = 'with open("f.bin", "wb") as f:\n    f.write(b"x" * (2 * 1024 * 1024))';
    await expect(runPython(code, opts({ maxFileSizeMb: 1 }))).rejects.toThrow(/File too large/);
  });

  it('limits CPU time per process', async () => {
    const r = await executePython('while True: pass', opts({ cpuSeconds: 1, timeoutMs: 8000 }));
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBe(128 + os.constants.signals.SIGXCPU); // bubblewrap's init reports the signal as 128 + n
    await expect(runPython('while True: pass', opts({ cpuSeconds: 1, timeoutMs: 8000 }))).rejects.toThrow(/was killed by SIGXCPU/);
  });

  it('truncates long output with a note', async () => {
    const out = await runPython('print("x" * 50000)', opts({ maxOutputBytes: 1000 }));
    expect(out).toBe(`${'x'.repeat(1000)}\n[output truncated: 49001 more bytes not shown]`);
  });

  it('the runner closes descriptors it inherited beyond stdin/stdout/stderr before running the code', async () => {
    // plain python (no sandbox) with three extra pipes standing in for descriptors a service leaked
    const child = spawn('/usr/bin/python3', ['-I', '-c', PYTHON_RUNNER], { stdio: ['pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const closed = new Promise((resolve) => child.on('close', resolve));
    child.stdin?.end(
      'import os\nprint(sorted((int(f), os.readlink(f"/proc/self/fd/{f}")[:6]) for f in os.listdir("/proc/self/fd") if os.path.exists(f"/proc/self/fd/{f}")))',
    );
    await closed;
    expect(out.trim()).toBe("[(0, 'socket'), (1, 'socket'), (2, 'socket'), (3, '/dev/n')]"); // 3: stdin reopened on /dev/null
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const run = runPython('print("busy", flush=True)\nwhile True: pass', opts({ timeoutMs: 20000 }), controller.signal);
    setTimeout(() => controller.abort(), 300);
    await expect(run).rejects.toBeTruthy();
    expect(Date.now() - started).toBeLessThan(3000);
    await expect(runPython('print(1)', opts(), AbortSignal.abort())).rejects.toBeTruthy();
  });
});
