/**
 * The Python program passed with `python3 -I -u -c`: it reads the user's code from stdin and runs it in a
 * fresh namespace. Like a REPL, the value of a final bare expression is printed (the AST's last statement is
 * wrapped in a print call). Tracebacks show only the user's frames (`<python_repl>`).
 *
 * This is convenience only, NOT a security boundary: nothing here restricts the code, and the code may
 * change anything in this interpreter. (Closing inherited descriptors first is hygiene the code cannot undo,
 * since it does not run yet; bubblewrap has no option for it.) Isolation and limits are enforced outside Python by the operating
 * system (see python-sandbox.ts: bubblewrap namespaces, rlimits set by prlimit, a size-limited tmpfs).
 */
export const PYTHON_RUNNER = `
import os, sys
os.closerange(3, 1 << 30)  # descriptors the service leaked without O_CLOEXEC: closed before any user code exists
_src = sys.stdin.buffer.read().decode('utf-8', 'replace')
sys.stdin = open('/dev/null')

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
