import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { createGeneralTools } from './index';
import { createPythonReplTool, pythonReplAvailability, type PythonReplOptions, pythonReplSandboxMode, runPython } from './python-repl.tool';
import { ToolError } from './tool-error';

const isRoot = process.getuid?.() === 0;
const detected = pythonReplSandboxMode({ enabled: true });
const preambleMode = pythonReplSandboxMode({ enabled: true, sandbox: 'preamble' });
/** Python tests need a python3 on the default search path; the unshare ones also need namespaces (root). */
const withPython = typeof preambleMode === 'string' ? it : it.skip;
const withUnshare = detected === 'unshare' ? it : it.skip;

describe('python_repl', () => {
  let tmpDir: string;
  const opts = (extra: PythonReplOptions = {}): PythonReplOptions => ({ enabled: true, tmpDir, timeoutMs: 5000, ...extra });

  beforeAll(() => {
    tmpDir = mkdtempSync(path.join(os.tmpdir(), 'python-repl-test-'));
  });
  afterAll(() => rmSync(tmpDir, { recursive: true, force: true }));
  afterEach(() => {
    expect(readdirSync(tmpDir)).toEqual([]); // every run removed its scratch directory
  });

  it('is off unless enabled', async () => {
    expect(pythonReplAvailability({})).toMatchObject({ available: false, reason: expect.stringMatching(/disabled/) });
    expect(pythonReplAvailability({ enabled: false }).available).toBe(false);
    await expect(runPython('print(1)', {})).rejects.toThrow(/disabled/);
    expect(createGeneralTools({}).tools.map((t) => t.name)).not.toContain('python_repl');
  });

  it('is unavailable when the interpreter cannot be found', () => {
    expect(pythonReplAvailability({ enabled: true, pythonPath: 'no-such-python' })).toMatchObject({
      available: false,
      reason: expect.stringMatching(/not found/),
    });
  });

  withPython('runs code, prints the final expression like a REPL, and keeps Korean text', async () => {
    const tool = createPythonReplTool(opts());
    await expect(tool.invoke({ code: 'x = 6 * 7\nprint("답:", x)\nx + 1' })).resolves.toBe('답: 42\n43');
    await expect(runPython('y = 1', opts())).resolves.toMatch(/no output/);
  });

  withPython('returns errors with the traceback of the user code only', async () => {
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

  const pgrep = (pattern: string): number[] => {
    try {
      return execFileSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
    } catch {
      return []; // pgrep exits 1 when nothing matches
    }
  };
  const modes = (['unshare', 'preamble'] as const).filter((m) => pythonReplSandboxMode({ enabled: true, sandbox: m }) === m);

  (modes.length ? it.each(modes) : it.skip.each(['none']))('kills the process group on timeout, including children (%s)', async (mode) => {
    const started = Date.now();
    const code = 'import subprocess\nsubprocess.Popen(["sleep", "987.654"])\nprint("started", flush=True)\nwhile True: pass';
    const err = await runPython(
      code,
      opts({ timeoutMs: 1000, allowSubprocess: true, sandbox: mode as PythonReplOptions['sandbox'] }),
    ).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/timed out after 1 s[\s\S]*started/);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(pgrep('sleep 987.654')).toEqual([]);
  });

  const escape = (tag: string) => `import subprocess\nsubprocess.Popen(["setsid", "sleep", "${tag}"])\nprint("ok")`;

  withUnshare('the PID namespace kills even descendants that left the process group (unshare)', async () => {
    await expect(runPython(escape('987.321'), opts({ allowSubprocess: true, sandbox: 'unshare' }))).resolves.toBe('ok');
    expect(pgrep('sleep 987.321')).toEqual([]);
  });

  withPython('does not hang on a descendant that left the process group (preamble mode)', async () => {
    const started = Date.now();
    try {
      await expect(runPython(escape('987.322'), opts({ allowSubprocess: true, sandbox: 'preamble' }))).resolves.toBe('ok');
      expect(Date.now() - started).toBeLessThan(4000);
    } finally {
      for (const pid of pgrep('^sleep 987.322')) process.kill(pid, 'SIGKILL'); // the escaped process this test started
    }
  });

  withPython('enforces the memory limit', async () => {
    await expect(runPython('b = bytearray(16 * 1024 * 1024)\nprint(len(b))', opts({ memoryLimitMb: 128 }))).resolves.toBe('16777216');
    await expect(runPython('b = bytearray(512 * 1024 * 1024)', opts({ memoryLimitMb: 128 }))).rejects.toThrow(/MemoryError/);
  });

  withPython('limits the size of files the code writes', async () => {
    const code = 'with open("f.bin", "wb") as f:\n    f.write(b"x" * (2 * 1024 * 1024))';
    await expect(runPython(code, opts({ maxFileSizeMb: 1 }))).rejects.toThrow(/File too large/);
  });

  describe('network', () => {
    let server: net.Server;
    let port: number;
    let connections = 0;
    beforeAll(async () => {
      server = net.createServer((s) => {
        connections++;
        s.end('hello\n');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as net.AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const connect = () => `import socket\ns = socket.create_connection(("127.0.0.1", ${port}), timeout=3)\nprint(s.recv(10))`;

    it('the probe server is reachable from outside the sandbox (control)', async () => {
      const sock = net.connect(port, '127.0.0.1');
      await new Promise((resolve) => sock.once('data', resolve));
      sock.destroy();
      expect(connections).toBe(1);
      connections = 0;
    });

    withUnshare('is blocked by an empty network namespace (unshare)', async () => {
      await expect(runPython(connect(), opts({ sandbox: 'unshare' }))).rejects.toThrow(/Network is unreachable|OSError/);
      // even ctypes-level tricks cannot help: the namespace has no usable interface
      await expect(runPython('import socket\nprint(socket.getaddrinfo("example.com", 80))', opts({ sandbox: 'unshare' }))).rejects.toThrow(
        /gaierror|Errno/,
      );
      expect(connections).toBe(0);
    });

    withPython('refuses unix-domain sockets, which a network namespace does not hide', async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'python-repl-sock-'));
      const sockPath = path.join(dir, 'api.sock');
      let unixConnections = 0;
      const unixServer = net.createServer((s) => {
        unixConnections++;
        s.end();
      });
      await new Promise<void>((resolve) => unixServer.listen(sockPath, resolve));
      try {
        const code = `import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect(${JSON.stringify(sockPath)})`;
        // runAs: null keeps root, so file permissions alone would not stop the connection
        await expect(runPython(code, opts({ runAs: null }))).rejects.toThrow(/unix-domain sockets are disabled/);
        expect(unixConnections).toBe(0);
      } finally {
        await new Promise<void>((resolve) => unixServer.close(() => resolve()));
        rmSync(dir, { recursive: true, force: true });
      }
    });

    withPython('is blocked by the audit-hook preamble in fallback mode', async () => {
      await expect(runPython(connect(), opts({ sandbox: 'preamble' }))).rejects.toThrow(/network access is disabled/);
      await expect(runPython('import _socket\n_socket.socket()', opts({ sandbox: 'preamble' }))).rejects.toThrow(
        /network access is disabled/,
      );
      expect(connections).toBe(0);
    });
  });

  withPython('truncates long output with a note', async () => {
    const out = await runPython('print("x" * 50000)', opts({ maxOutputBytes: 1000 }));
    expect(out).toBe(`${'x'.repeat(1000)}\n[output truncated: 49001 more bytes not shown]`);
  });

  withPython('runs in a fresh scratch directory that is removed afterwards, with a minimal environment', async () => {
    process.env.PYTHON_REPL_TEST_SECRET = 'do-not-leak';
    try {
      const out = await runPython(
        'import os, json\nopen("scratch.txt", "w").write("x")\nprint(json.dumps([os.getcwd(), sorted(os.environ)]))',
        opts(),
      );
      const [cwd, env] = JSON.parse(out) as [string, string[]];
      expect(path.dirname(cwd)).toBe(tmpDir);
      expect(path.basename(cwd)).toMatch(/^python-repl-/);
      expect(existsSync(cwd)).toBe(false);
      expect(env).toEqual(['LANG', 'PATH']);
    } finally {
      delete process.env.PYTHON_REPL_TEST_SECRET;
    }
    await expect(runPython('import os\nraise SystemExit(os.getcwd())', opts())).rejects.toThrow(/python-repl-/);
  });

  withPython('blocks subprocesses unless allowed', async () => {
    await expect(runPython('import subprocess\nsubprocess.run(["true"])', opts())).rejects.toThrow(
      /starting processes and ctypes are disabled/,
    );
    await expect(runPython('import os\nos.system("true")', opts())).rejects.toThrow(/disabled/);
    await expect(
      runPython(
        'import subprocess\nprint(subprocess.run(["echo", "ok"], capture_output=True, text=True).stdout.strip())',
        opts({ allowSubprocess: true }),
      ),
    ).resolves.toBe('ok');
  });

  (isRoot && detected === 'unshare' ? it : it.skip)('drops root to nobody, which makes the process limit effective', async () => {
    await expect(runPython('import os\nprint(os.getuid(), os.getgid())', opts())).resolves.toBe('65534 65534');
    await expect(runPython('import os\nprint(os.getuid())', opts({ runAs: null }))).resolves.toBe('0');
    const forkLoop =
      'import os, time\nn = 0\ntry:\n    for _ in range(50):\n        if os.fork() == 0:\n            time.sleep(2); os._exit(0)\n        n += 1\nexcept OSError as e:\n    print("fork refused after", n)';
    await expect(runPython(forkLoop, opts({ maxProcesses: 5, allowSubprocess: true }))).resolves.toMatch(/^fork refused after [0-4]$/);
  });

  withPython('stops when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    await expect(runPython('while True: pass', opts({ timeoutMs: 20000 }), controller.signal)).rejects.toBeTruthy();
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
