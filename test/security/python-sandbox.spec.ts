import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { executePython, pythonReplAvailability, type PythonReplOptions, runPython } from '../../src/tools/general/python-repl.tool';

/**
 * Every escape used against the old in-interpreter guards, replayed against the bubblewrap sandbox. Each
 * test has a control showing that the target is really there for an unsandboxed process (Postgres and Redis
 * answer, the planted file and sockets exist), so a pass means the sandbox stopped it.
 */
const run = promisify(execFile);
const PG_SOCKET = '/var/run/postgresql/.s.PGSQL.5432';
const opts = (extra: PythonReplOptions = {}): PythonReplOptions => ({ enabled: true, timeoutMs: 8000, ...extra });

async function hostProcesses(uid: number): Promise<number> {
  try {
    const { stdout } = await run('pgrep', ['-c', '-U', String(uid)]);
    return Number(stdout.trim());
  } catch {
    return 0; // pgrep exits 1 when nothing matches
  }
}

/** Polls until no process of the host uid is left (the kernel tears the PID namespace down just after exit). */
async function processesLeft(uid: number | undefined, timeoutMs = 2000): Promise<number> {
  if (uid === undefined) return 0;
  const deadline = Date.now() + timeoutMs;
  let left = await hostProcesses(uid);
  while (left > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    left = await hostProcesses(uid);
  }
  return left;
}

function connectFromHost(target: net.NetConnectOpts): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(target);
    socket.setTimeout(2000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

async function listen(server: net.Server, target: string | { port: number; host: string }): Promise<void> {
  await new Promise<void>((resolve) =>
    typeof target === 'string' ? server.listen(target, resolve) : server.listen(target.port, target.host, resolve),
  );
}

/** Python that tries each probe and prints {name: "OK ..." | "<ExceptionName>[:<errno name>]"} as JSON. */
function probeScript(probes: Record<string, string>): string {
  const lines = Object.entries(probes).map(([name, expr]) => `attempt(${JSON.stringify(name)}, lambda: ${expr})`);
  return [
    'import errno, json, os, socket',
    'results = {}',
    'def attempt(name, fn):',
    '    try:',
    '        results[name] = "OK " + repr(fn())[:60]',
    '    except Exception as e:',
    '        code = errno.errorcode.get(getattr(e, "errno", None) or 0)',
    '        results[name] = type(e).__name__ + (":" + code if code else "")',
    'def tcp(host, port):',
    '    s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)',
    '    s.settimeout(2)',
    '    s.connect((host, port))',
    '    return "connected"',
    'def syscall(nr):',
    '    import ctypes',
    '    return (ctypes.CDLL(None, use_errno=True).syscall(nr, 0, 0, 0, 0, 0), ctypes.get_errno())',
    'def unix(path):',
    '    s = socket.socket(socket.AF_UNIX)',
    '    s.settimeout(2)',
    '    s.connect(path)',
    '    return "connected"',
    ...lines,
    'print(json.dumps(results))',
  ].join('\n');
}

const parse = (stdout: string) => JSON.parse(stdout) as Record<string, string>;

describe('python_repl sandbox: escapes that must fail', () => {
  let hostDir: string;
  let planted: string;
  let unixServer: net.Server;
  let unixPath: string;
  let abstractServer: net.Server;
  let abstractName: string;
  let tcpServer: net.Server;
  let tcpPort: number;
  let connections = 0;
  const count = (s: net.Socket) => {
    connections++;
    s.end();
  };

  beforeAll(async () => {
    expect(pythonReplAvailability(opts())).toEqual({ available: true });
    hostDir = mkdtempSync(path.join(os.tmpdir(), 'python-sandbox-host-'));
    planted = path.join(hostDir, 'database-url.txt');
    writeFileSync(planted, 'postgres://postgres:secret@127.0.0.1:5432/postgres\n', { mode: 0o644 });
    unixPath = path.join(hostDir, 'api.sock');
    unixServer = net.createServer(count);
    await listen(unixServer, unixPath);
    abstractName = `\0python-sandbox-${randomBytes(6).toString('hex')}`;
    abstractServer = net.createServer(count);
    await listen(abstractServer, abstractName);
    tcpServer = net.createServer(count);
    await listen(tcpServer, { port: 0, host: '0.0.0.0' });
    tcpPort = (tcpServer.address() as net.AddressInfo).port;
  });

  afterAll(async () => {
    for (const server of [unixServer, abstractServer, tcpServer]) await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(hostDir, { recursive: true, force: true });
  });

  const hostAddresses = () =>
    Object.values(os.networkInterfaces())
      .flat()
      .filter((a): a is os.NetworkInterfaceInfo => !!a && a.family === 'IPv4' && !a.internal)
      .map((a) => a.address);

  it('controls: every target is reachable from an unsandboxed process', async () => {
    await expect(connectFromHost({ host: '127.0.0.1', port: 5432 })).resolves.toBe(true);
    await expect(connectFromHost({ host: '127.0.0.1', port: 6379 })).resolves.toBe(true);
    await expect(connectFromHost({ path: PG_SOCKET })).resolves.toBe(true);
    await expect(connectFromHost({ path: unixPath })).resolves.toBe(true);
    await expect(connectFromHost({ path: abstractName })).resolves.toBe(true);
    await expect(connectFromHost({ host: '127.0.0.1', port: tcpPort })).resolves.toBe(true);
    for (const address of hostAddresses()) await expect(connectFromHost({ host: address, port: tcpPort })).resolves.toBe(true);
    expect(existsSync(planted) && existsSync('/etc/passwd')).toBe(true);
    expect(connections).toBe(3 + hostAddresses().length);
    connections = 0;
  });

  it('normal code still works and returns its stdout', async () => {
    const code = 'import json, math\nprint(math.factorial(10))\nprint(json.dumps({"pi": round(math.pi, 4)}))';
    await expect(runPython(code, opts())).resolves.toBe('3628800\n{"pi": 3.1416}');
  });

  it('guard tampering (_BLOCK_PROC, isinstance) and subprocess still reach nothing', async () => {
    const inner = probeScript({
      pgTcp: 'tcp("127.0.0.1", 5432)',
      redisTcp: 'tcp("127.0.0.1", 6379)',
      pgSocket: `unix(${JSON.stringify(PG_SOCKET)})`,
      passwd: 'open("/etc/passwd").read()',
      planted: `open(${JSON.stringify(planted)}).read()`,
    });
    const code = [
      'import sys, builtins, subprocess, json',
      'sys.modules["__main__"]._BLOCK_PROC = False',
      '_isinstance = builtins.isinstance',
      '# the old audit hook let calls through when isinstance(address, (str, bytes)) was false',
      'builtins.isinstance = lambda o, t: False if t == (str, bytes) else _isinstance(o, t)',
      `r = subprocess.run(["/usr/bin/python3", "-c", ${JSON.stringify(inner)}], capture_output=True, text=True)`,
      'cat = subprocess.run(["cat", "/etc/passwd"], capture_output=True, text=True)',
      'print(json.dumps({"inner": r.stdout, "innerErr": r.stderr, "cat": cat.returncode, "catOut": cat.stdout}))',
    ].join('\n');
    const out = JSON.parse(await runPython(code, opts())) as { inner: string; innerErr: string; cat: number; catOut: string };
    expect(out.innerErr).toBe('');
    expect(parse(out.inner)).toEqual({
      pgTcp: 'ConnectionRefusedError:ECONNREFUSED', // the sandbox's own, empty loopback
      redisTcp: 'ConnectionRefusedError:ECONNREFUSED',
      pgSocket: 'FileNotFoundError:ENOENT',
      passwd: 'FileNotFoundError:ENOENT',
      planted: 'FileNotFoundError:ENOENT',
    });
    expect(out.cat).not.toBe(0);
    expect(out.catOut).toBe('');
  });

  it('TCP to Postgres, Redis and a host server fails, on loopback and on the host address', async () => {
    const probes: Record<string, string> = {
      pg: 'tcp("127.0.0.1", 5432)',
      redis: 'tcp("127.0.0.1", 6379)',
      probe: `tcp("127.0.0.1", ${tcpPort})`,
      probe6: `tcp("::1", ${tcpPort})`,
      interfaces: '[n for _, n in socket.if_nameindex()]',
    };
    for (const [i, address] of hostAddresses().entries()) probes[`host${i}`] = `tcp(${JSON.stringify(address)}, ${tcpPort})`;
    const results = parse(await runPython(probeScript(probes), opts()));
    const { interfaces, ...connects } = results;
    expect(interfaces).toBe("OK ['lo']"); // only the namespace's own loopback
    for (const [name, result] of Object.entries(connects)) {
      // loopback is the sandbox's own (nothing listens there); every other address has no route
      const expected = /^(pg|redis|probe|probe6)$/.test(name) ? 'ConnectionRefusedError:ECONNREFUSED' : 'OSError:ENETUNREACH';
      expect([name, result]).toEqual([name, expected]);
    }
    expect(connections).toBe(0);
  });

  it('Unix sockets of the host are not visible: Postgres socket, a socket in host /tmp, an abstract socket', async () => {
    const results = parse(
      await runPython(
        probeScript({
          pg: `unix(${JSON.stringify(PG_SOCKET)})`,
          hostTmp: `unix(${JSON.stringify(unixPath)})`,
          abstract: `unix(${JSON.stringify(abstractName)})`,
          pgDir: 'os.listdir("/var/run/postgresql")',
        }),
        opts(),
      ),
    );
    expect(results).toEqual({
      pg: 'FileNotFoundError:ENOENT',
      hostTmp: 'FileNotFoundError:ENOENT',
      abstract: 'ConnectionRefusedError:ECONNREFUSED', // abstract sockets belong to the (new, empty) network namespace
      pgDir: 'FileNotFoundError:ENOENT',
    });
    expect(connections).toBe(0);
  });

  it('host files are not readable: /etc/passwd, /work, /root, /home, host /tmp, other processes', async () => {
    const results = parse(
      await runPython(
        probeScript({
          passwd: 'open("/etc/passwd").read()',
          planted: `open(${JSON.stringify(planted)}).read()`,
          hostDir: `os.listdir(${JSON.stringify(hostDir)})`,
          work: 'os.listdir("/work")',
          root: 'os.listdir("/root")',
          home: 'os.listdir("/home")',
          run: 'os.listdir("/run")',
          varLib: 'os.listdir("/var/lib/postgresql")',
          hostProcess: `open("/proc/${process.pid}/environ").read()`,
          rootDir: 'sorted(os.listdir("/"))',
          tmp: 'os.listdir("/tmp")',
          usrLocal: 'os.listdir("/usr/local")',
          pids: 'len([p for p in os.listdir("/proc") if p.isdigit()])',
        }),
        opts(),
      ),
    );
    const { rootDir, tmp, usrLocal, pids, ...reads } = results;
    for (const [name, result] of Object.entries(reads)) expect([name, result]).toEqual([name, 'FileNotFoundError:ENOENT']);
    const visible = JSON.parse(rootDir.slice(3).replace(/'/g, '"')) as string[];
    expect(visible.every((entry) => ['bin', 'dev', 'lib', 'lib64', 'proc', 'tmp', 'usr'].includes(entry))).toBe(true);
    expect(tmp).toBe('OK []'); // a private, empty /tmp
    expect(usrLocal).toBe('OK []'); // host tools under /usr/local are hidden
    expect(Number(pids.slice(3))).toBeLessThanOrEqual(3); // its own PID namespace: bwrap's init, python, nothing of the host
  });

  it('privileges cannot be raised and limits cannot be lifted from inside', async () => {
    const code = probeScript({
      setuid: 'os.setuid(0)',
      ctypesSetuid: '__import__("ctypes").CDLL(None, use_errno=True).setuid(0)',
      newUserNs: '__import__("ctypes").CDLL(None, use_errno=True).unshare(0x10000000)', // CLONE_NEWUSER
      raiseNproc: '__import__("resource").setrlimit(6, (-1, -1))', // RLIMIT_NPROC to unlimited
      raiseAs: '__import__("resource").setrlimit(9, (-1, -1))', // RLIMIT_AS to unlimited
      writeRoot: 'open("/evil", "w")',
      writeUsr: 'open("/usr/evil", "w")',
      writeUsrLocal: 'open("/usr/local/evil", "w")',
      writeDev: 'open("/dev/evil", "w")',
    });
    expect(parse(await runPython(code, opts()))).toEqual({
      setuid: expect.stringMatching(/^(PermissionError|OSError):E(PERM|INVAL)$/), // uid 0 is not even mapped
      ctypesSetuid: 'OK -1',
      newUserNs: 'OK -1',
      raiseNproc: 'ValueError', // not allowed to raise maximum limit
      raiseAs: 'ValueError',
      writeRoot: 'OSError:EROFS',
      writeUsr: 'OSError:EROFS',
      writeUsrLocal: 'OSError:EROFS',
      writeDev: 'OSError:EROFS',
    });
  });

  it('vsock (not covered by network namespaces) and other socket families are refused, as are risky system calls', async () => {
    const families = {
      vsock: 'socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)',
      alg: 'socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET)',
      packet: 'socket.socket(socket.AF_PACKET, socket.SOCK_RAW)',
    };
    const syscalls = {
      io_uring_setup: 425,
      bpf: 321,
      keyctl: 250,
      userfaultfd: 323,
      unshare: 272,
      ptrace: 101,
      mount: 165,
      perf_event_open: 298,
    };
    const probes: Record<string, string> = { getpid: 'os.getpid()', ...families };
    for (const [name, nr] of Object.entries(syscalls)) probes[name] = `syscall(${nr})`;
    // control: the host's own python may create a vsock socket (created only, never connected)
    const host = await run('/usr/bin/python3', ['-c', 'import socket; print(socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM).family)']);
    expect(host.stdout.trim()).toBe('40');
    const results = parse(await runPython(probeScript(probes), opts()));
    expect(results.getpid).toBe('OK 2'); // everything else still works
    for (const name of Object.keys(families)) expect([name, results[name]]).toEqual([name, 'OSError:EAFNOSUPPORT']);
    for (const name of Object.keys(syscalls)) expect([name, results[name]]).toEqual([name, 'OK (-1, 1)']); // EPERM
  });

  it('the code inherits no descriptor of the service besides stdin, stdout and stderr', async () => {
    const code = 'import os\nfds = os.listdir("/proc/self/fd")\nprint(sorted(int(f) for f in fds if os.path.exists(f"/proc/self/fd/{f}")))';
    await expect(runPython(code, opts())).resolves.toMatch(/^\[0, 1, 2(, 3)?\]$/); // 3: the listing itself or /dev/null stdin
  });

  it('writing 200 MB to /tmp or /dev/shm is refused by the quota and nothing remains on the host', async () => {
    const marker = `python-sandbox-fill-${randomBytes(6).toString('hex')}`;
    const fill = (dir: string) =>
      [
        'import errno, json',
        'written, error = 0, None',
        'try:',
        '    for i in range(25):  # 25 files of 8 MB: each under the file-size limit, 200 MB together',
        `        with open(f"${dir}/${marker}-{i}", "wb") as f:`,
        '            for _ in range(8):',
        '                f.write(b"\\xff" * (1024 * 1024))',
        '                f.flush()',
        '                written += 1024 * 1024',
        'except OSError as e:',
        '    error = errno.errorcode[e.errno]',
        'print(json.dumps({"written": written, "error": error}))',
      ].join('\n');
    const tmp = JSON.parse(await runPython(fill('/tmp'), opts())) as { written: number; error: string };
    expect(tmp.error).toBe('ENOSPC');
    expect(tmp.written).toBeLessThanOrEqual(64 * 1024 * 1024);
    const shm = JSON.parse(await runPython(fill('/dev/shm'), opts())) as { written: number; error: string };
    expect(shm.error).toBe('ENOSPC');
    expect(shm.written).toBeLessThanOrEqual(8 * 1024 * 1024);
    const smaller = JSON.parse(await runPython(fill('/tmp'), opts({ tmpSizeMb: 4 }))) as { written: number; error: string };
    expect(smaller).toEqual({ written: expect.any(Number), error: 'ENOSPC' });
    expect(smaller.written).toBeLessThanOrEqual(4 * 1024 * 1024);
    for (const dir of ['/tmp', '/var/tmp', '/dev/shm']) {
      expect(readdirSync(dir).filter((name) => name.startsWith(marker))).toEqual([]);
    }
  });

  it('a fork bomb is contained by the process limit, killed at the timeout, and the host stays fine', async () => {
    const bomb = [
      'import errno, os',
      'root = os.getpid()',
      'reported = False',
      'while True:',
      '    try:',
      '        os.fork()',
      '    except OSError as e:',
      '        if os.getpid() == root and not reported:',
      '            reported = True',
      '            print("refused", errno.errorcode[e.errno], len([p for p in os.listdir("/proc") if p.isdigit()]), flush=True)',
    ].join('\n');
    let hostUid: number | undefined;
    let peak = 0;
    let done = false;
    const sampler = (async () => {
      while (!done) {
        if (hostUid !== undefined) peak = Math.max(peak, await hostProcesses(hostUid));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const started = Date.now();
    const result = await executePython(bomb, opts({ timeoutMs: 2000, maxProcesses: 16 }), undefined, (uid) => (hostUid = uid));
    done = true;
    await sampler;
    expect(result.timedOut).toBe(true);
    expect(result.stdout).toMatch(/^refused EAGAIN (\d+)\n/);
    expect(Number(/^refused EAGAIN (\d+)/.exec(result.stdout)?.[1])).toBeLessThanOrEqual(16);
    expect(Date.now() - started).toBeLessThan(5000);
    if (process.getuid?.() === 0) {
      expect(hostUid).toBeDefined();
      expect(peak).toBeGreaterThan(1); // the sampler saw the bomb
      expect(peak).toBeLessThanOrEqual(17); // 16 in the sandbox + bubblewrap itself
    }
    await expect(processesLeft(hostUid)).resolves.toBe(0);
    await expect(run('true')).resolves.toBeDefined(); // the host can still start processes
    await expect(runPython('print("alive")', opts())).resolves.toBe('alive');
  });

  it('a thread bomb hits the same limit', async () => {
    const code = [
      'import threading, time',
      'n = 0',
      'try:',
      '    while True:',
      '        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()',
      '        n += 1',
      'except RuntimeError as e:',
      '    print("refused after", n)',
    ].join('\n');
    await expect(runPython(code, opts({ maxProcesses: 16 }))).resolves.toMatch(/^refused after (1[0-5]|[0-9])$/);
  });

  it('a memory bomb is contained, also when it forks', async () => {
    const grow = 'x = []\nwhile True:\n    x.append(bytearray(16 * 1024 * 1024))';
    await expect(runPython(grow, opts({ memoryLimitMb: 256 }))).rejects.toThrow(/MemoryError/);
    await expect(runPython('bytearray(8 * 1024 ** 3)', opts())).rejects.toThrow(/MemoryError/);
    const forked = [
      'import os',
      'kids = []',
      'for _ in range(3):',
      '    pid = os.fork()',
      '    if pid == 0:',
      '        try:',
      '            x = []',
      '            while True: x.append(bytearray(16 * 1024 * 1024))',
      '        except MemoryError:',
      '            os._exit(42)',
      '    kids.append(pid)',
      'print(sorted(os.waitstatus_to_exitcode(os.waitpid(k, 0)[1]) for k in kids))',
    ].join('\n');
    await expect(runPython(forked, opts({ memoryLimitMb: 128 }))).resolves.toBe('[42, 42, 42]'); // children inherit the limit
  });

  it('an infinite loop is killed by the timeout, with everything it started', async () => {
    const started = Date.now();
    const code = 'import subprocess\nsubprocess.Popen(["sleep", "600"])\nwhile True: pass';
    const result = await executePython(code, opts({ timeoutMs: 1500 }));
    expect(result.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(4000);
    await expect(processesLeft(result.hostUid)).resolves.toBe(0);
    await expect(runPython('while True: pass', opts({ timeoutMs: 1000 }))).rejects.toThrow(/timed out after 1 s/);
  });

  it('an output flood is capped and stopped long before the timeout', async () => {
    const started = Date.now();
    const result = await executePython('while True:\n    print("x" * 10000)', opts({ timeoutMs: 8000, maxOutputBytes: 4096 }));
    expect(result.outputLimitHit).toBe(true);
    expect(result.timedOut).toBe(false);
    expect(result.stdout.length).toBe(4096);
    expect(Date.now() - started).toBeLessThan(4000);
    await expect(processesLeft(result.hostUid)).resolves.toBe(0);
    await expect(runPython('while True:\n    print("x" * 10000)', opts({ maxOutputBytes: 4096 }))).rejects.toThrow(
      /printed more than 1048576 bytes and was killed/,
    );
  });
});
