/**
 * A seccomp filter (classic BPF, the format bubblewrap's `--seccomp FD` loads) that narrows the kernel
 * surface the sandboxed code can reach, on top of the namespaces:
 * - socket families other than Unix, IPv4, IPv6 and netlink fail with EAFNOSUPPORT. AF_VSOCK matters most:
 *   vsock is not covered by network namespaces, so without this the code could talk to hypervisor or
 *   host-side vsock services. AF_ALG, AF_PACKET and the rarer families have a history of kernel bugs.
 * - system calls with no place in a Python REPL and a record of privilege-escalation bugs fail with EPERM
 *   (io_uring, bpf, userfaultfd, perf_event_open, keyrings, ptrace, mounts and namespace changes, modules,
 *   kexec, file handles).
 * - another architecture's system calls (x32 on x86_64, a foreign AUDIT_ARCH) kill the process.
 *
 * Only x86_64 is described here; on other architectures `seccompProgram` returns undefined and the sandbox
 * runs with namespaces and rlimits alone.
 */

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_KILL_PROCESS = 0x80000000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const EAFNOSUPPORT = 97;
const AUDIT_ARCH_X86_64 = 0xc000003e;
const X32_SYSCALL_BIT = 0x40000000;
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0 = 16; // low 32 bits of args[0] (little endian)

/** x86_64 numbers of the calls refused with EPERM. */
const DENIED_X86_64: Record<string, number> = {
  ptrace: 101,
  syslog: 103,
  vhangup: 153,
  pivot_root: 155,
  chroot: 161,
  acct: 163,
  mount: 165,
  umount2: 166,
  swapon: 167,
  swapoff: 168,
  iopl: 172,
  ioperm: 173,
  init_module: 175,
  delete_module: 176,
  quotactl: 179,
  kexec_load: 246,
  add_key: 248,
  request_key: 249,
  keyctl: 250,
  unshare: 272,
  perf_event_open: 298,
  name_to_handle_at: 303,
  open_by_handle_at: 304,
  setns: 308,
  process_vm_readv: 310,
  process_vm_writev: 311,
  finit_module: 313,
  kexec_file_load: 320,
  bpf: 321,
  userfaultfd: 323,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
};
const SOCKET_CALLS_X86_64 = [41, 53]; // socket, socketpair
/** AF_UNIX, AF_INET, AF_INET6, AF_NETLINK (glibc's if_nameindex/getaddrinfo use netlink). */
const ALLOWED_FAMILIES = [1, 2, 10, 16];

type Insn = { code: number; k: number; jt?: string };

function assemble(program: (Insn | { label: string })[]): Buffer {
  const insns: Insn[] = [];
  const labels = new Map<string, number>();
  for (const item of program) {
    if ('label' in item) labels.set(item.label, insns.length);
    else insns.push(item);
  }
  const out = Buffer.alloc(insns.length * 8);
  insns.forEach((insn, i) => {
    let jt = 0;
    if (insn.jt !== undefined) {
      const target = labels.get(insn.jt);
      if (target === undefined || target <= i || target - i - 1 > 255) throw new Error(`bad seccomp jump to ${insn.jt}`);
      jt = target - i - 1;
    }
    out.writeUInt16LE(insn.code, i * 8);
    out.writeUInt8(jt, i * 8 + 2);
    out.writeUInt8(0, i * 8 + 3);
    out.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return out;
}

let cached: Buffer | undefined;

/** The filter for this machine's architecture, or undefined when there is none for it. */
export function seccompProgram(arch: string = process.arch): Buffer | undefined {
  if (arch !== 'x64') return undefined;
  cached ??= assemble([
    { code: BPF_LD_W_ABS, k: OFFSET_ARCH },
    { code: BPF_JEQ_K, k: AUDIT_ARCH_X86_64, jt: 'native' },
    { code: BPF_RET_K, k: RET_KILL_PROCESS },
    { label: 'native' },
    { code: BPF_LD_W_ABS, k: OFFSET_NR },
    { code: BPF_JGE_K, k: X32_SYSCALL_BIT, jt: 'kill' },
    ...Object.values(DENIED_X86_64).map((nr) => ({ code: BPF_JEQ_K, k: nr, jt: 'eperm' })),
    ...SOCKET_CALLS_X86_64.map((nr) => ({ code: BPF_JEQ_K, k: nr, jt: 'socket' })),
    { code: BPF_RET_K, k: RET_ALLOW },
    { label: 'socket' },
    { code: BPF_LD_W_ABS, k: OFFSET_ARG0 },
    ...ALLOWED_FAMILIES.map((family) => ({ code: BPF_JEQ_K, k: family, jt: 'allow' })),
    { code: BPF_RET_K, k: RET_ERRNO | EAFNOSUPPORT },
    { label: 'allow' },
    { code: BPF_RET_K, k: RET_ALLOW },
    { label: 'eperm' },
    { code: BPF_RET_K, k: RET_ERRNO | EPERM },
    { label: 'kill' },
    { code: BPF_RET_K, k: RET_KILL_PROCESS },
  ]);
  return cached;
}

export const SECCOMP_DENIED_SYSCALLS = Object.keys(DENIED_X86_64);
