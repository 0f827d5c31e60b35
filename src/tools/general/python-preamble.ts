/**
 * The Python program passed with `python3 -I -c`: it reads the user's code from stdin, applies resource
 * limits, optionally installs audit hooks, then runs the code in a fresh namespace. Like a REPL, the value
 * of a final bare expression is printed (the AST's last statement is wrapped in a print call).
 * Tracebacks show only the user's frames (`<python_repl>`).
 *
 * Audit hooks (PEP 578) cannot be removed from Python code, but Python's docs say plainly that they are
 * not a sandbox (ctypes can bypass them). They are only the fallback when `unshare` is unavailable, and a
 * guard against process spawning (fork bombs, shelling out to curl) and unix-domain sockets in every mode.
 */
export interface PreambleOptions {
  memoryBytes: number;
  fileSizeBytes: number;
  maxProcesses: number;
  /** Refuse socket creation/DNS via audit hooks (fallback when there is no network namespace). */
  blockNetwork: boolean;
  /** Refuse fork/exec/subprocess/ctypes via audit hooks. */
  blockSubprocess: boolean;
}

const int = (n: number) => String(Math.max(0, Math.floor(n)));

export function buildPreamble(o: PreambleOptions): string {
  return `
import sys, resource
_src = sys.stdin.buffer.read().decode('utf-8', 'replace')
sys.stdin = open('/dev/null')

def _limit(name, value):
    res = getattr(resource, name, None)
    if res is None:
        return
    try:
        resource.setrlimit(res, (value, value))
    except (ValueError, OSError):
        pass

_limit('RLIMIT_AS', ${int(o.memoryBytes)})
_limit('RLIMIT_DATA', ${int(o.memoryBytes)})
_limit('RLIMIT_FSIZE', ${int(o.fileSizeBytes)})
_limit('RLIMIT_NPROC', ${int(o.maxProcesses)})
_limit('RLIMIT_CORE', 0)

_BLOCK_NET = ${o.blockNetwork ? 'True' : 'False'}
_BLOCK_PROC = ${o.blockSubprocess ? 'True' : 'False'}
_PROC_EVENTS = ('os.fork', 'os.forkpty', 'os.exec', 'os.posix_spawn', 'os.spawn', 'os.system',
                'subprocess.Popen', 'pty.spawn', 'ctypes.dlopen', 'ctypes.dlsym')

def _audit(event, args):
    # Unix-domain sockets are files, not network: a network namespace does not hide e.g. docker.sock.
    if event in ('socket.connect', 'socket.bind', 'socket.sendto', 'socket.sendmsg') and len(args) > 1 and isinstance(args[1], (str, bytes)):
        raise PermissionError('unix-domain sockets are disabled in python_repl')
    if _BLOCK_NET and event.startswith('socket.'):
        raise PermissionError('network access is disabled in python_repl (' + event + ')')
    if _BLOCK_PROC and event in _PROC_EVENTS:
        raise PermissionError('starting processes and ctypes are disabled in python_repl (' + event + ')')

sys.addaudithook(_audit)

def _show(value):
    if value is not None:
        print(repr(value))

def _run(src):
    import ast, linecache
    linecache.cache['<python_repl>'] = (len(src), None, src.splitlines(True), '<python_repl>')  # source lines in tracebacks
    tree = ast.parse(src, '<python_repl>', 'exec')
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body[-1]
        call = ast.Call(func=ast.Name('__repl_show__', ast.Load()), args=[last.value], keywords=[])
        tree.body[-1] = ast.fix_missing_locations(ast.copy_location(ast.Expr(ast.copy_location(call, last)), last))
    ns = {'__name__': '__main__', '__builtins__': __builtins__, '__repl_show__': _show}
    exec(compile(tree, '<python_repl>', 'exec'), ns)

try:
    _run(_src)
except SystemExit:
    raise
except BaseException as e:
    import traceback
    tb = e.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != '<python_repl>':
        tb = tb.tb_next
    traceback.print_exception(type(e), e, tb)
    sys.stderr.flush()
    sys.exit(1)
`;
}
