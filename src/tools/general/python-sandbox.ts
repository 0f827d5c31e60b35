import { type ChildProcess, spawn, spawnSync, type StdioOptions } from 'node:child_process';
import { randomInt } from 'node:crypto';
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';

import { PYTHON_RUNNER } from './python-runner';
import { seccompProgram } from './python-seccomp';
import { ToolError } from './tool-error';

/**
 * OS-level isolation for python_repl: bubblewrap namespaces plus rlimits, nothing inside the interpreter.
 *
 * - File system: a new mount namespace whose root holds only read-only `/usr` (without `/usr/local`) and
 *   the `/bin`, `/lib`, `/lib64` links or binds of the host; a private `/proc` of the sandbox's own PID
 *   namespace, a minimal `/dev`, and two empty size-limited tmpfs (`/tmp`, `/dev/shm`) that vanish with the
 *   namespace. Everything else (`/etc`, `/root`, `/home`, `/work`, `/run`, `/var`, the host's `/tmp`) does
 *   not exist there. `/`, `/dev` and `/usr/local` are remounted read-only.
 * - Fresh user (uid/gid 65534 inside), PID, network (only its own loopback: nothing of the host is
 *   reachable, not even the host's abstract Unix sockets), IPC, UTS and cgroup namespaces; nested user namespaces disabled; a new session (no TIOCSTI);
 *   the sandbox dies with its parent; the environment is cleared; a seccomp filter (python-seccomp.ts)
 *   refuses socket families other than Unix/IPv4/IPv6/netlink (vsock is not namespaced) and risky calls.
 * - Limits: `prlimit` (util-linux, from the read-only `/usr`) sets RLIMIT_AS, CPU, FSIZE, NOFILE, NPROC and
 *   CORE, hard and soft, before exec'ing Python; the code cannot raise them. RLIMIT_NPROC is never enforced
 *   for host root (kuid 0), so when the service runs as root bubblewrap itself is started as an unprivileged
 *   host uid from a pool (unprivileged user namespaces do the rest). Because the limit is set after the user
 *   namespace exists, the kernel counts only the sandbox's own processes against it. The code runs at
 *   niceness 10 so that a CPU-bound or forking run leaves the service responsive.
 * - The caller's wall-clock timeout, abort signal or output flood SIGKILLs the sandbox's init, which takes
 *   the whole PID namespace with it (see sandboxKiller); bubblewrap's process group is the fallback, and
 *   `--die-with-parent` ends the sandbox if the service itself dies.
 */

export interface SandboxConfig {
  bwrapPath: string;
  pythonPath: string;
  prlimitPath: string;
  /** First host uid of the pool bubblewrap runs as when the service is root; null = keep the service's uid. */
  hostUidBase: number | null;
}

export interface SandboxLimits {
  timeoutMs: number;
  cpuSeconds: number;
  memoryBytes: number;
  fileSizeBytes: number;
  tmpBytes: number;
  shmBytes: number;
  maxProcesses: number;
  maxOpenFiles: number;
  /** Cap on each of stdout and stderr; the rest is counted and dropped. */
  maxOutputBytes: number;
  /** Total output after which the process tree is killed (a flood would otherwise run until the timeout). */
  killAfterOutputBytes: number;
}

export interface SandboxPlan {
  bwrap: string;
  python: string;
  prlimit: string;
  /** coreutils `nice` inside /usr, when present: the sandbox runs at a lower CPU priority than the service. */
  nice?: string;
  rootfs: string[];
  hostUidBase: number | null;
  /** BPF program for `--seccomp` (undefined on architectures python-seccomp.ts does not describe). */
  seccomp?: Buffer;
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
  /** Killed because the output went over `killAfterOutputBytes`. */
  outputLimitHit: boolean;
  /** The host uid bubblewrap ran as (undefined: the service's own uid). */
  hostUid?: number;
}

/** uid/gid the code sees inside the sandbox. */
export const SANDBOX_UID = 65534;
const HOST_UID_POOL = 10_000;
const SANDBOX_NICENESS = 10;
const SYSTEM_DIRS = ['/bin', '/lib', '/lib64'];

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Resolves an absolute program path that must lie in the read-only `/usr` the sandbox sees. */
function resolveInUsr(file: string, what: string): string | { error: string } {
  if (!file.startsWith('/')) return { error: `${what} must be an absolute path (got "${file}")` };
  if (!isExecutableFile(file)) return { error: `${what} ${file} not found` };
  const real = realpathSync(file);
  if (!real.startsWith('/usr/') || real.startsWith('/usr/local/')) {
    return { error: `${what} ${file} resolves to ${real}, outside the /usr the sandbox mounts` };
  }
  return file;
}

/** `/usr` read-only without `/usr/local`, and `/bin`, `/lib`, `/lib64` as the host has them (links or dirs). */
function rootfsArgs(): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  if (existsSync('/usr/local')) args.push('--tmpfs', '/usr/local', '--remount-ro', '/usr/local'); // host tools, other Pythons
  for (const dir of SYSTEM_DIRS) {
    try {
      const st = lstatSync(dir);
      if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
      else if (st.isDirectory()) args.push('--ro-bind', dir, dir);
    } catch {
      // not on this system
    }
  }
  return args;
}

export function bwrapArgs(plan: SandboxPlan, limits: SandboxLimits, pythonArgs: string[]): string[] {
  const n = (v: number) => String(Math.max(1, Math.floor(v)));
  return [
    ...plan.rootfs,
    ...['--perms', '1777', '--size', n(limits.tmpBytes), '--tmpfs', '/tmp'],
    ...['--proc', '/proc', '--dev', '/dev'],
    ...['--perms', '1777', '--size', n(limits.shmBytes), '--tmpfs', '/dev/shm'],
    ...['--remount-ro', '/dev', '--remount-ro', '/'],
    ...['--unshare-all', '--unshare-user', '--disable-userns', '--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_UID)],
    ...['--hostname', 'python-repl', '--die-with-parent', '--new-session', '--clearenv'],
    ...['--setenv', 'LANG', 'C.UTF-8', '--setenv', 'PATH', '/usr/bin:/bin', '--setenv', 'HOME', '/tmp', '--setenv', 'TMPDIR', '/tmp'],
    ...['--chdir', '/tmp', '--'],
    ...(plan.nice ? [plan.nice, '-n', String(SANDBOX_NICENESS)] : []),
    plan.prlimit,
    `--as=${n(limits.memoryBytes)}`,
    `--cpu=${n(limits.cpuSeconds)}:${n(limits.cpuSeconds + 1)}`, // SIGXCPU at the soft limit, SIGKILL a second later
    `--fsize=${n(limits.fileSizeBytes)}`,
    `--nofile=${n(limits.maxOpenFiles)}`,
    `--nproc=${n(limits.maxProcesses)}`,
    '--core=0',
    '--',
    plan.python,
    ...pythonArgs,
  ];
}

let uidCounter = randomInt(HOST_UID_POOL); // random start: concurrent services rarely share a uid

/** A pool uid when the service is root (RLIMIT_NPROC does not bind root), else the service's own uid. */
function nextHostUid(plan: SandboxPlan): number | undefined {
  if (plan.hostUidBase === null || process.getuid?.() !== 0) return undefined;
  uidCounter = (uidCounter + 1) % HOST_UID_POOL;
  return plan.hostUidBase + uidCounter;
}

const HOST_ENV = { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' };
const plans = new Map<string, SandboxPlan>();

/**
 * Checks bubblewrap, prlimit and Python, then runs `python -c pass` through the full sandbox once (cached
 * on success). Any failure makes the tool unavailable: there is no unsandboxed fallback.
 */
export function planSandbox(config: SandboxConfig, probeLimits: SandboxLimits): SandboxPlan | { error: string } {
  const key = JSON.stringify(config);
  const cached = plans.get(key);
  if (cached) return cached;
  if (!config.bwrapPath.startsWith('/') || !isExecutableFile(config.bwrapPath)) {
    return { error: `bubblewrap (${config.bwrapPath}) not found: install the Debian package "bubblewrap"` };
  }
  const python = resolveInUsr(config.pythonPath, 'python interpreter');
  if (typeof python !== 'string') return python;
  const prlimit = resolveInUsr(config.prlimitPath, 'prlimit');
  if (typeof prlimit !== 'string') return prlimit;
  const rootfs = rootfsArgs();
  const plan: SandboxPlan = {
    bwrap: config.bwrapPath,
    python,
    prlimit,
    nice: isExecutableFile('/usr/bin/nice') ? '/usr/bin/nice' : undefined,
    rootfs,
    hostUidBase: config.hostUidBase,
    seccomp: seccompProgram(),
  };
  const probe = probeRun(plan, probeLimits);
  if (probe.status !== 0) {
    const why = (probe.stderr || probe.error?.message || `exit ${probe.status}`).trim().slice(0, 300);
    return { error: `the bubblewrap sandbox does not work here: ${why}` };
  }
  plans.set(key, plan);
  return plan;
}

/** Runs `python -I -c pass` through the full sandbox (the seccomp filter passed from a private temp file). */
function probeRun(plan: SandboxPlan, limits: SandboxLimits) {
  const uid = nextHostUid(plan);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'python-repl-probe-'));
  let fd: number | undefined;
  try {
    if (plan.seccomp) {
      writeFileSync(path.join(dir, 'seccomp.bpf'), plan.seccomp, { mode: 0o600 });
      fd = openSync(path.join(dir, 'seccomp.bpf'), 'r');
    }
    const args = [...(fd === undefined ? [] : ['--seccomp', '3']), ...bwrapArgs(plan, limits, ['-I', '-c', 'pass'])];
    const stdio: StdioOptions = ['pipe', 'pipe', 'pipe', ...(fd === undefined ? [] : [fd])];
    return spawnSync(plan.bwrap, args, { cwd: '/', env: HOST_ENV, uid, gid: uid, stdio, timeout: 15_000, encoding: 'utf8' });
  } finally {
    if (fd !== undefined) closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
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
    total: () => kept + dropped,
  };
}

function ownedBy(pid: number, uid: number): boolean {
  try {
    return statSync(`/proc/${pid}`).uid === uid;
  } catch {
    return false;
  }
}

/**
 * Stops a running sandbox. SIGKILL to its init (PID 1 inside; bubblewrap reports its host pid on
 * `--info-fd 3`) makes the kernel kill the whole PID namespace, after which bubblewrap reaps it and exits.
 * Killing bubblewrap's process group instead would also work (`--die-with-parent`), but leaves the init as
 * an orphaned zombie until the host's init reaps it; the group kill remains the fallback.
 */
function sandboxKiller(child: ChildProcess, ownerUid: number) {
  let initPid: number | undefined;
  let exited = false;
  let info = '';
  const infoPipe = child.stdio[3];
  if (infoPipe instanceof Readable) {
    infoPipe.setEncoding('utf8');
    infoPipe.on('data', (chunk: string) => {
      info += chunk;
      const m = /"child-pid":\s*(\d+)/.exec(info);
      if (m) initPid = Number(m[1]);
    });
  }
  child.on('exit', () => (exited = true));
  const killGroup = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const kill = () => {
    if (exited) return;
    if (initPid === undefined || !ownedBy(initPid, ownerUid)) return killGroup();
    try {
      process.kill(initPid, 'SIGKILL');
    } catch {
      // already gone
    }
    setTimeout(() => exited || killGroup(), 1000).unref();
  };
  return { kill, killGroup };
}

/** Runs `code` (on stdin) through PYTHON_RUNNER inside the sandbox and collects its capped output. */
export function runSandboxed(
  code: string,
  plan: SandboxPlan,
  limits: SandboxLimits,
  signal?: AbortSignal,
  onSpawn?: (hostUid: number | undefined) => void,
): Promise<RunResult> {
  return new Promise<RunResult>((resolve, reject) => {
    const hostUid = nextHostUid(plan);
    const seccomp = plan.seccomp ? ['--seccomp', '4'] : [];
    const args = ['--info-fd', '3', ...seccomp, ...bwrapArgs(plan, limits, ['-I', '-u', '-c', PYTHON_RUNNER])];
    const stdio: StdioOptions = ['pipe', 'pipe', 'pipe', 'pipe', 'pipe']; // fd 3: --info-fd, fd 4: --seccomp
    const child = spawn(plan.bwrap, args, { cwd: '/', env: HOST_ENV, uid: hostUid, gid: hostUid, detached: true, stdio });
    const { stdin, stdout, stderr } = child;
    if (!stdin || !stdout || !stderr) return reject(new ToolError('python_repl could not open pipes to the sandbox'));
    onSpawn?.(hostUid);
    const { kill, killGroup } = sandboxKiller(child, hostUid ?? process.getuid?.() ?? -1);
    const out = collector(limits.maxOutputBytes);
    const err = collector(limits.maxOutputBytes);
    let timedOut = false;
    let outputLimitHit = false;
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, limits.timeoutMs);
    const onData = (sink: ReturnType<typeof collector>) => (chunk: Buffer) => {
      sink.push(chunk);
      if (!outputLimitHit && out.total() + err.total() > limits.killAfterOutputBytes) {
        outputLimitHit = true;
        kill();
      }
    };
    signal?.addEventListener('abort', kill, { once: true });
    stdout.on('data', onData(out));
    stderr.on('data', onData(err));
    stdin.on('error', () => undefined); // EPIPE when the process dies before reading its code
    child.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new ToolError(`python_repl could not start the sandbox: ${e.code ?? e.message}`));
    });
    child.on('exit', () => {
      killGroup(); // stragglers in the group (the PID namespace is already gone with bubblewrap)
      setTimeout(() => {
        stdout.destroy();
        stderr.destroy();
      }, 1000).unref();
    });
    child.on('close', (exitCode: number | null, sig: NodeJS.Signals | null) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', kill);
      if (signal?.aborted) return reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      resolve({
        stdout: out.text(),
        stderr: err.text(),
        stdoutDropped: out.dropped(),
        stderrDropped: err.dropped(),
        exitCode,
        signal: sig,
        timedOut,
        outputLimitHit,
        hostUid,
      });
    });
    const seccompPipe = child.stdio[4];
    if (seccompPipe instanceof Writable) {
      seccompPipe.on('error', () => undefined);
      seccompPipe.end(plan.seccomp ?? Buffer.alloc(0));
    }
    stdin.end(code);
  });
}
