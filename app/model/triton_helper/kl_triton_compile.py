"""Compile one @triton.jit kernel of a Triton rung to a cubin, for the Kernel Ladder engine.

This file ships inside the programs: the build embeds it (app/model/CMakeLists.txt), and no
kernels tree can provide or replace it. The engine (app/model/triton_child.cpp) runs it as

    PYTHON -I -B -c <this text> [--probe | --check FILE]

with the learner's python3 (KL_PYTHON, else python3 on PATH), in a private output folder (mode
0700) that is its working folder, HOME, TMPDIR and TRITON_CACHE_DIR, with an environment of the
engine's making (PATH, HOME, TMPDIR, TRITON_CACHE_DIR and nothing else: no PYTHON* or TRITON_*
variable reaches it) and a time limit. Before anything else it installs an audit hook
(install_guard) that refuses writes outside that folder and every program but Triton's own
ptxas / cuobjdump / nvdisasm. docs/security.md says what each layer gives and what it does not.

  --probe: {"ok": true, "triton_version": "3.6.0"}, or exit 3 with one line on stderr when Triton
  cannot be imported.

  --check FILE...: the second layer's verdict on rung sources (check_source), without Triton:
  {"files": [{"file": F, "ok": true, "kernels": ["softmax_rows"]},
             {"file": G, "ok": false, "error": "G:LINE: ..."}]}, exit 1 if one is refused.

  Otherwise one JSON request on stdin, one JSON answer on stdout (docs/formats.md, "Triton rungs"):
  request {
    "source": "<output folder>/rung.py",                 # the rung's text as the engine checked it
    "display": "/abs/kernels/softmax/07_triton_softmax.py",  # the name messages use
    "kernel": "softmax_rows",                            # its @triton.jit function
    "signature": [{"type": "*fp32", "div16": true}, ...],  # the arguments that are not constexprs,
                                                           #   in order: "*fp32", "*bf16", "*fp16",
                                                           #   "i32", "i64", "fp32"; div16: the
                                                           #   value (or pointer) is a multiple of 16
    "constexprs": {"BLOCK": 1024},                       # every tl.constexpr argument
    "num_warps": 4, "num_stages": 3, "arch": 90
  }
  answer {
    "ok": true, "triton_version": "3.6.0", "name": "softmax_rows",
    "params": ["y_ptr", "x_ptr", "n_rows", "n_cols"],   # the kernel's parameters, in order; the
                                                        #   cubin's entry takes these, then the
                                                        #   global and the profile scratch pointers
    "cubin_base64": "...", "ptx": "...", "ttgir": "...",
    "metadata": {"shared": 0, "num_warps": 4, "num_stages": 3, "num_ctas": 1,
                 "global_scratch_size": 0, "global_scratch_align": 1,
                 "profile_scratch_size": 0, "profile_scratch_align": 1}
  }
  or, exit 1: {"ok": false, "error": "one line"}.
"""
import ast
import base64
import json
import os
import sys

POINTER_TYPES = {"*fp32", "*bf16", "*fp16", "*i32", "*i64"}
SCALAR_TYPES = {"i32", "i64", "fp32"}

# The rules of a rung's source, the same as the engine's first layer (app/model/triton_source.cpp,
# kForbiddenNames and kBodyKeywords): keep the two lists equal.
FORBIDDEN_NAMES = frozenset([
    "eval", "exec", "compile", "open", "getattr", "setattr", "delattr", "globals", "locals", "vars",
    "breakpoint", "help", "memoryview", "type", "object", "super", "os", "sys", "subprocess",
    "builtins", "importlib", "ctypes", "shutil", "socket", "pickle", "marshal", "inspect", "system",
    "popen"
])
ALLOWED_IMPORTS = {("triton", None), ("triton.language", "tl"), ("math", None)}
TOP_LEVEL_RULE = ("a Triton rung's top level holds only `import triton`, `import triton.language as tl`, "
                  "`import math`, @triton.jit functions and constants (NAME = literal or tl.constexpr(literal))")
# The programs Triton runs while compiling (nvidia backend: ptxas, and cuobjdump / nvdisasm for
# SASS), allowed only from Triton's own package folder.
TOOLS = frozenset(["ptxas", "ptxas-blackwell", "cuobjdump", "nvdisasm"])


class Refusal(Exception):
    pass


def one_line(text):
    text = " ".join(str(text).split())
    return text[:600]


# [SECTION] The audit hook


def install_guard(out_dir, refusals):
    """Refuses, from here on, writes outside out_dir and every program but Triton's tools.

    An audit hook sees what Python's own functions do (open, os.*, shutil.*, subprocess, sockets,
    ctypes); it does not see what native code does by itself, and code that runs in this process
    could still read any file the user can. It is the last of three layers, not a sandbox."""
    out_dir = os.path.realpath(out_dir)
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

    def real(path, dir_fd=None):
        if isinstance(path, int):
            return None
        path = os.fsdecode(os.fspath(path))
        if not os.path.isabs(path):
            if dir_fd is None or dir_fd < 0:  # os.* events give -1 for "no dir_fd"
                path = os.path.join(os.getcwd(), path)
            else:
                path = os.path.join(os.readlink("/proc/self/fd/%d" % dir_fd), path)
        return os.path.realpath(path)

    def inside(path, dir_fd=None):
        if isinstance(path, int):
            return True  # an open descriptor: what opened it was checked
        p = real(path, dir_fd)
        return p == out_dir or p.startswith(out_dir + os.sep) or p == os.devnull

    def tool(program):
        if isinstance(program, (list, tuple)):
            program = program[0] if program else ""
        program = os.fsdecode(os.fspath(program))
        triton = sys.modules.get("triton")
        if not os.path.isabs(program) or triton is None or not getattr(triton, "__file__", None):
            return False
        root = os.path.dirname(os.path.realpath(triton.__file__))
        p = os.path.realpath(program)
        return os.path.basename(p) in TOOLS and p.startswith(root + os.sep)

    def writes(mode, flags):
        if isinstance(mode, str) and any(c in mode for c in "wax+"):
            return True
        return isinstance(flags, int) and (flags & write_flags) != 0

    def verdict(event, args):
        # -> None (allowed) or what is refused. Events of older Pythons may lack the last arguments.
        args = tuple(args) + (None, None, None, None)
        if event == "open":
            path, mode, flags = args[:3]
            if not writes(mode, flags) or isinstance(path, int):
                return None
            if not os.path.isabs(os.fsdecode(os.fspath(path))):
                # The event does not carry dir_fd: a relative path could name any folder.
                return "writing %r (a relative path)" % (path, )
            return None if inside(path) else "writing %s" % real(path)
        if event in ("os.remove", "os.rmdir", "shutil.rmtree"):
            return None if inside(args[0], args[1]) else "%s %s" % (event, real(args[0], args[1]))
        if event in ("os.mkdir", "os.chmod"):
            return None if inside(args[0], args[2]) else "%s %s" % (event, real(args[0], args[2]))
        if event in ("os.chown", "os.utime"):
            return None if inside(args[0], args[3]) else "%s %s" % (event, real(args[0], args[3]))
        if event in ("os.truncate", "os.setxattr", "os.removexattr", "shutil.chown"):
            return None if inside(args[0]) else "%s %s" % (event, real(args[0]))
        if event == "os.rename":
            ok = inside(args[0], args[2]) and inside(args[1], args[3])
            return None if ok else "renaming %s to %s" % (real(args[0], args[2]), real(args[1], args[3]))
        if event in ("shutil.copyfile", "shutil.copymode", "shutil.copystat", "shutil.copytree"):
            return None if inside(args[1]) else "%s to %s" % (event, real(args[1]))
        if event == "shutil.move":
            return None if inside(args[0]) and inside(args[1]) else "moving %s" % real(args[0])
        if event == "shutil.make_archive":
            return None if inside(args[0]) else "an archive at %s" % real(args[0])
        if event == "shutil.unpack_archive":
            return None if inside(args[1]) else "unpacking into %s" % real(args[1])
        if event in ("os.link", "os.symlink"):
            return "%s %s -> %s" % (event, args[0], args[1])  # a link could carry a later write out
        if event == "subprocess.Popen":
            program = args[0] if args[0] is not None else args[1]
            return None if tool(program) else "running %r" % (program, )
        if event in ("os.exec", "os.posix_spawn"):
            return None if tool(args[0]) else "running %r" % (args[0], )
        if event == "os.spawn":
            return None if tool(args[1]) else "running %r" % (args[1], )
        if event in ("os.system", "os.fork", "os.forkpty", "pty.spawn", "os.startfile", "webbrowser.open"):
            return event
        if event in ("os.kill", "os.killpg"):
            return None if args[0] == os.getpid() else "%s %r" % (event, args[0])
        if event in ("socket.__new__", "socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg"):
            return "network access (%s)" % event
        if event in ("ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.call_function"):
            # ctypes reaches C functions (system, execve) that no audit event sees.
            return "native code through ctypes (%s)" % event
        return None

    def hook(event, args):
        try:
            why = verdict(event, args)
        except Exception as e:  # an argument of a shape not foreseen: refuse, never let it through
            why = "%s (%s)" % (event, type(e).__name__)
        if why is not None:
            refusals.append(why)
            raise PermissionError("kl_triton_compile refused " + why + ": outside what a Triton compile may do")

    sys.addaudithook(hook)


# [SECTION] The rung's source, checked again (the engine checked it first, in C++)


def check_identifier(name, node, display):
    if name.startswith("__") or name in FORBIDDEN_NAMES:
        raise Refusal("%s:%d: '%s' is not allowed in a Triton rung" % (display, node.lineno, name))


def is_literal(node):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = getattr(node.operand, "value", None)
        return isinstance(node.operand, ast.Constant) and isinstance(v, (int, float, complex)) and not isinstance(
            v, bool)
    return isinstance(node, ast.Constant) and not isinstance(node.value, type(Ellipsis))


def is_tl_constexpr(node):
    return isinstance(node, ast.Attribute) and node.attr == "constexpr" and isinstance(
        node.value, ast.Name) and node.value.id == "tl"


def is_constant(node):
    if isinstance(node, ast.Call):
        return is_tl_constexpr(node.func) and len(node.args) == 1 and not node.keywords and is_literal(node.args[0])
    return is_literal(node)


def check_function(fn, display):
    where = "%s:%d: " % (display, fn.lineno)
    d = fn.decorator_list
    if len(d) != 1 or not (isinstance(d[0], ast.Attribute) and d[0].attr == "jit" and isinstance(d[0].value, ast.Name)
                           and d[0].value.id == "triton"):
        raise Refusal(where + "function '%s' is not decorated with exactly @triton.jit" % fn.name)
    a = fn.args
    if a.vararg or a.kwarg or a.kwonlyargs or getattr(a, "posonlyargs", []) or fn.returns is not None:
        raise Refusal(where + "function '%s': parameters are NAME or NAME: tl.constexpr, with literal defaults" %
                      fn.name)
    for arg in a.args:
        if arg.annotation is not None and not is_tl_constexpr(arg.annotation):
            raise Refusal(where + "parameter '%s': the only annotation is tl.constexpr" % arg.arg)
    for default in a.defaults:
        if not is_literal(default):
            raise Refusal(where + "function '%s': a default that is not a literal" % fn.name)
    body = ast.Module(body=fn.body, type_ignores=[])
    for node in ast.walk(body):
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.ClassDef, ast.Lambda, ast.Global, ast.Nonlocal,
                             ast.FunctionDef, ast.AsyncFunctionDef, ast.Await, ast.Yield, ast.YieldFrom,
                             ast.JoinedStr)):
            raise Refusal("%s:%d: %s inside function '%s'" % (display, node.lineno, type(node).__name__, fn.name))
        if isinstance(node, ast.Name):
            if node.id == "triton":
                raise Refusal("%s:%d: 'triton' inside a kernel (use tl)" % (display, node.lineno))
            check_identifier(node.id, node, display)
        elif isinstance(node, ast.Attribute):
            check_identifier(node.attr, node, display)
        elif isinstance(node, ast.keyword) and node.arg is not None:
            check_identifier(node.arg, node.value, display)
    for name in [fn.name] + [arg.arg for arg in a.args]:
        check_identifier(name, fn, display)


def check_statement(node, display):
    """One top-level statement; returns the kernel name it defines, or None."""
    where = "%s:%d: " % (display, node.lineno)
    if isinstance(node, ast.Import):
        for alias in node.names:
            if (alias.name, alias.asname) not in ALLOWED_IMPORTS:
                raise Refusal(where + "'import %s%s': %s" %
                              (alias.name, " as " + alias.asname if alias.asname else "", TOP_LEVEL_RULE))
        return None
    if isinstance(node, ast.FunctionDef):
        check_function(node, display)
        return node.name
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        check_identifier(node.targets[0].id, node, display)
        if is_constant(node.value):
            return None
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        return None  # a docstring
    raise Refusal(where + "%s at the top level: %s" % (type(node).__name__, TOP_LEVEL_RULE))


def check_source(text, display):
    """The kernels (the @triton.jit functions) of a rung's source, or Refusal naming FILE:LINE."""
    import io
    import tokenize

    try:
        encoding = tokenize.detect_encoding(io.BytesIO(text).readline)[0]
    except SyntaxError as e:
        raise Refusal("%s:1: %s" % (display, one_line(e)))
    if encoding not in ("utf-8", "utf-8-sig"):
        raise Refusal("%s:1: a source encoding declaration other than UTF-8 (%s)" % (display, encoding))
    try:
        tree = ast.parse(text, filename=display)
    except SyntaxError as e:
        raise Refusal("%s:%s: %s" % (display, e.lineno or 0, one_line(e.msg)))
    except ValueError as e:  # NUL bytes
        raise Refusal("%s: %s" % (display, one_line(e)))
    kernels = []
    for node in tree.body:
        name = check_statement(node, display)
        if name is not None:
            kernels.append(name)
    return kernels


# [SECTION] The compile


def import_triton():
    try:
        import triton  # noqa: F401
        return triton
    except Exception as e:  # ImportError, or a broken installation
        raise Refusal("cannot import triton: " + one_line(e))


def load_kernel(path, display, name):
    import importlib.util

    with open(path, "rb") as f:
        text = f.read()
    kernels = check_source(text, display)
    if name not in kernels:
        raise Refusal("%s: no @triton.jit function '%s' (it has %s)" % (display, name, ", ".join(kernels) or "none"))
    spec = importlib.util.spec_from_file_location("kl_triton_rung", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        raise Refusal(display + ": " + type(e).__name__ + ": " + one_line(e))
    fn = module.__dict__.get(name)
    if not hasattr(fn, "arg_names") or not hasattr(fn, "constexprs"):
        raise Refusal(display + ": '" + name + "' is not a @triton.jit function")
    return fn


def build_source(fn, req):
    from triton.compiler import ASTSource

    names = list(fn.arg_names)
    const_idx = set(fn.constexprs)
    runtime_names = [n for i, n in enumerate(names) if i not in const_idx]
    const_names = [n for i, n in enumerate(names) if i in const_idx]
    sig_in = req.get("signature", [])
    consts = req.get("constexprs", {})
    if len(sig_in) != len(runtime_names):
        raise Refusal("kernel %s takes %d arguments besides constexprs (%s); the manifest gives %d" %
                      (fn.__name__, len(runtime_names), ", ".join(runtime_names), len(sig_in)))
    missing = [n for n in const_names if n not in consts]
    if missing:
        raise Refusal("kernel %s: constexpr %s has no value (add it to the rung's params or constexprs)" %
                      (fn.__name__, ", ".join(missing)))
    extra = [n for n in consts if n not in const_names]
    if extra:
        raise Refusal("kernel %s has no constexpr argument %s (its constexprs: %s)" %
                      (fn.__name__, ", ".join(extra), ", ".join(const_names) or "none"))
    signature, attrs = {}, {}
    it = iter(sig_in)
    for i, n in enumerate(names):
        if n in consts:
            signature[n] = "constexpr"
            continue
        arg = next(it)
        t = arg.get("type", "")
        if t not in POINTER_TYPES and t not in SCALAR_TYPES:
            raise Refusal("argument %s: unknown type '%s'" % (n, t))
        signature[n] = t
        if arg.get("div16"):
            attrs[(i, )] = [["tt.divisibility", 16]]
    constexprs = {(names.index(n), ): v for n, v in consts.items()}
    return ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs), runtime_names


def metadata_of(kernel):
    md = kernel.metadata
    md = md._asdict() if hasattr(md, "_asdict") else dict(md)
    keys = {"shared": 0, "num_warps": 0, "num_stages": 0, "num_ctas": 1, "global_scratch_size": 0,
            "global_scratch_align": 1, "profile_scratch_size": 0, "profile_scratch_align": 1}
    out = {}
    for k, default in keys.items():
        v = md.get(k, default)
        out[k] = int(v) if isinstance(v, (int, float)) else default
    out["name"] = str(md.get("name", ""))
    return out


def compile_request(req):
    for key in ("source", "kernel", "num_warps", "num_stages", "arch"):
        if key not in req:
            raise Refusal("request: missing '" + key + "'")
    display = str(req.get("display", req["source"]))
    triton = import_triton()
    from triton.backends.compiler import GPUTarget

    fn = load_kernel(req["source"], display, req["kernel"])
    src, runtime_names = build_source(fn, req)
    target = GPUTarget("cuda", int(req["arch"]), 32)
    options = {"num_warps": int(req["num_warps"]), "num_stages": int(req["num_stages"])}
    try:
        kernel = triton.compile(src, target=target, options=options)
    except Exception as e:
        message = one_line(e).replace(req["source"], display)
        raise Refusal("triton.compile of %s: %s: %s" % (req["kernel"], type(e).__name__, message))
    asm = kernel.asm
    md = metadata_of(kernel)
    return {
        "ok": True,
        "triton_version": triton.__version__,
        "name": md.pop("name") or req["kernel"],
        "params": runtime_names,
        "cubin_base64": base64.b64encode(asm["cubin"]).decode("ascii"),
        "ptx": asm.get("ptx", ""),
        "ttgir": asm.get("ttgir", ""),
        "metadata": md,
    }


# [SECTION] Main

def check_file(path):
    try:
        with open(path, "rb") as f:
            return {"file": path, "ok": True, "kernels": check_source(f.read(), path)}
    except OSError as e:
        return {"file": path, "ok": False, "error": "%s: %s" % (path, one_line(e.strerror))}
    except Refusal as e:
        return {"file": path, "ok": False, "error": one_line(e)}


def answer_for(argv, refusals):
    """(exit code, answer object or None)."""
    if argv[:1] == ["--probe"]:
        try:
            triton = import_triton()
        except Refusal as e:
            print(str(e), file=sys.stderr)
            return 3, None
        return 0, {"ok": True, "triton_version": triton.__version__}
    if argv[:1] == ["--check"]:
        verdicts = [check_file(path) for path in argv[1:]]
        return (0 if all(v["ok"] for v in verdicts) else 1), {"files": verdicts}
    req = json.loads(sys.stdin.read())
    if not isinstance(req, dict):
        raise Refusal("request: expected a JSON object")
    return 0, compile_request(req)


def main(argv):
    if not hasattr(sys, "addaudithook"):
        print("cannot import triton: the compile helper needs Python 3.8 or newer (this is %d.%d)" %
              sys.version_info[:2], file=sys.stderr)
        return 3
    refusals = []
    install_guard(os.getcwd(), refusals)
    sys.dont_write_bytecode = True
    # Only the answer goes to the real stdout: anything Triton, ptxas or the rung prints (Python or
    # native) goes to stderr.
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        code, answer = answer_for(argv[1:], refusals)
    except Refusal as e:
        code, answer = 1, {"ok": False, "error": one_line(e)}
    except json.JSONDecodeError as e:
        code, answer = 1, {"ok": False, "error": "request is not JSON: " + one_line(e)}
    except Exception as e:  # a request of the wrong shape, or a refusal the rung's code turned into another error
        code, answer = 1, {"ok": False, "error": type(e).__name__ + ": " + one_line(e)}
    if refusals:
        # Refused, whatever came after: a compile that tried to is not to be trusted.
        why = "refused " + one_line(refusals[0])
        if answer is None:
            print(why, file=sys.stderr)
        elif code == 0 or "error" not in answer:
            code, answer = 1, {"ok": False, "error": why}
        elif why not in answer["error"]:
            answer["error"] += " (" + why + ")"
    if answer is not None:
        print(json.dumps(answer), file=out)
    out.flush()
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
