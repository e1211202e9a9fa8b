# SPDX-License-Identifier: Apache-2.0
# submission_harness.py: the Python side of `nvfp4bench --submission FILE.py` (run/submission.cpp).
# The build embeds this file into the binary; nvfp4bench runs it in the CPython it hosts, as the
# module `_nvfp4bench_harness`. Every entry point takes and returns a str, so that the C side needs
# only a handful of CPython's stable-ABI functions:
#   load(json)    -> json  import torch and one submission; {"id"} or {"skip"} or {"error"}
#   prepare(json) -> json  build gpu-mode's input tuple over nvfp4bench's device buffers; {"id"}
#   call(id, stream) -> "" or the last line of the exception custom_kernel raised
#   publish(id, stream) -> "" or why the returned output breaks the contract (shape, dtype, type)
#   release(id)   -> ""
# Nothing here synchronises the device or copies an input: the tensors are views of nvfp4bench's
# buffers (through __cuda_array_interface__), and custom_kernel runs on nvfp4bench's stream.
import ast
import importlib.util
import json
import os
import sys
import traceback
import types

torch = None
_modules = {}   # load id -> module
_cases = {}     # prepare id -> _Case
_streams = {}   # stream handle -> torch.cuda.ExternalStream
_next_id = [1]


def _new_id():
    _next_id[0] += 1
    return _next_id[0]


def _last_line(exc):
    text = traceback.format_exception_only(type(exc), exc)
    return " ".join(text[-1].split()) if text else type(exc).__name__


def check_source(path):
    """Why the file cannot be a submission ("" when it can): a syntax error, or no top-level
    custom_kernel. Needs no torch (the probe runs it before anything is imported)."""
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read(), filename=path)
    except SyntaxError as e:
        return "line {}: SyntaxError: {}".format(e.lineno, e.msg)
    except (OSError, ValueError) as e:
        return _last_line(e)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == "custom_kernel":
            return ""
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Name) and sub.id == "custom_kernel":
                        return ""
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if (alias.asname or alias.name.split(".")[-1]) == "custom_kernel":
                    return ""
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            for sub in ast.walk(node):  # a definition under a top-level if/try/with
                if isinstance(sub, (ast.FunctionDef, ast.Name)) and getattr(sub, "name", getattr(sub, "id", "")) == "custom_kernel":
                    return ""
    return "defines no custom_kernel(data) at the top level"


def _install_task_module():
    # gpu-mode submissions start with `from task import input_t, output_t`.
    if "task" in sys.modules:
        return
    from typing import TypedDict, TypeVar
    task = types.ModuleType("task")
    task.input_t = TypeVar("input_t", bound=tuple)
    task.output_t = TypeVar("output_t", bound=object)

    class TestSpec(TypedDict, total=False):
        m: int
        n: int
        k: int
        l: int
        g: int
        seed: int

    task.TestSpec = TestSpec
    sys.modules["task"] = task


def _start(req):
    global torch
    if torch is not None:
        return ""
    sys.path[:] = req["sys_path"]
    sys.executable = req["executable"]
    sys.argv = [req["executable"]]
    sys.stdout = sys.stderr  # the submission's prints must not mix with nvfp4bench's tables
    try:
        import torch as t
    except Exception as e:  # noqa: BLE001: ImportError, or anything torch's import raises
        return "no torch in {} ({})".format(req["executable"], _last_line(e))
    if not t.cuda.is_available():
        return "torch {} in {} has no CUDA (torch.version.cuda = {})".format(t.__version__, req["executable"],
                                                                          t.version.cuda)
    for name in ("float4_e2m1fn_x2", "float8_e4m3fn"):
        if not hasattr(t, name):
            return "torch {} in {} has no torch.{} (gpu-mode's inputs need torch 2.8 or newer)".format(
                t.__version__, req["executable"], name)
    t.cuda.set_device(req["device"])
    torch = t
    return ""


def load(arg):
    """{"path", "module", "sys_path", "executable", "device"} -> {"id", "torch"} | {"skip"} | {"error"}."""
    req = json.loads(arg)
    why = _start(req)
    if why:
        return json.dumps({"skip": why})
    _install_task_module()
    path = req["path"]
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # gpu-mode runs a submission beside its own helper files
    try:
        spec = importlib.util.spec_from_file_location(req["module"], path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[req["module"]] = module
        spec.loader.exec_module(module)
    except ModuleNotFoundError as e:
        return json.dumps({"skip": "imports a module that {} does not have ({})".format(req["executable"],
                                                                                          _last_line(e))})
    except BaseException as e:  # noqa: BLE001: SystemExit and KeyboardInterrupt of a script too
        return json.dumps({"error": "importing it raised {}".format(_last_line(e))})
    if not callable(getattr(module, "custom_kernel", None)):
        return json.dumps({"error": "defines no callable custom_kernel(data)"})
    mid = _new_id()
    _modules[mid] = module
    return json.dumps({"id": mid, "torch": torch.__version__})


class _DeviceBytes:
    """`nbytes` bytes of device memory at `ptr`, as torch.as_tensor sees them (no copy)."""

    def __init__(self, ptr, nbytes):
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (ptr, False),
                                         "version": 3, "strides": None, "stream": None}


def _bytes(ptr, nbytes):
    return torch.as_tensor(_DeviceBytes(ptr, nbytes), device="cuda")


def _fp4(op):
    # (rows, K/2, L) float4_e2m1fn_x2, strides (K/2, 1, rows*K/2): "K-major, L last".
    rows, kb, l = op["rows"], op["k"] // 2, op["l"]
    base = _bytes(op["data"], l * op["data_stride_l"])
    return base.as_strided((rows, kb, l), (op["data_stride_row"], 1, op["data_stride_l"])).view(torch.float4_e2m1fn_x2)


def _sf(op):
    # (rows, K/16, L) float8_e4m3fn, row-major per batch.
    rows, sk, l = op["rows"], op["k"] // 16, op["l"]
    base = _bytes(op["sf"], l * op["sf_stride_l"])
    return base.as_strided((rows, sk, l), (op["sf_stride_row"], 1, op["sf_stride_l"])).view(torch.float8_e4m3fn)


def _sf_permuted(op):
    # (32, 4, rest_rows, 4, rest_k, L) float8_e4m3fn over the blocked (cuBLAS) layout, PROBLEMS.md 1.3.
    rest_rows = (op["rows"] + 127) // 128
    rest_k = (op["k"] // 16 + 3) // 4
    l = op["l"]
    base = _bytes(op["sf_blocked"], l * op["sf_blocked_stride_l"])
    return base.as_strided((32, 4, rest_rows, 4, rest_k, l),
                           (16, 4, rest_k * 512, 1, 512, op["sf_blocked_stride_l"])).view(torch.float8_e4m3fn)


def _c(g):
    m, n, l = g["m"], g["n"], g["l"]
    base = _bytes(g["c"], 2 * l * g["c_stride_l"]).view(torch.float16)
    return base.as_strided((m, n, l), (g["c_stride_row"], 1, g["c_stride_l"]))


class _Case:
    def __init__(self, module, problem, groups):
        self.fn = module.custom_kernel
        self.problem = problem
        self.cs = [_c(g) for g in groups]
        self.out = None
        if problem in ("gemv", "gemm"):
            g = groups[0]
            a, b = g["a"], g["b"]
            self.data = (_fp4(a), _fp4(b), _sf(a), _sf(b), _sf_permuted(a), _sf_permuted(b), self.cs[0])
        elif problem == "dual_gemm":
            g = groups[0]
            a, b1, b2 = g["a"], g["b"], g["b2"]
            self.data = (_fp4(a), _fp4(b1), _fp4(b2), _sf(a), _sf(b1), _sf(b2), _sf_permuted(a), _sf_permuted(b1),
                         _sf_permuted(b2), self.cs[0])
        else:  # group_gemm: gpu-mode keeps the row-major scales on the CPU (PROBLEMS.md 2.4)
            abc = [(_fp4(g["a"]), _fp4(g["b"]), c) for g, c in zip(groups, self.cs)]
            sf = [(_sf(g["a"]).cpu(), _sf(g["b"]).cpu()) for g in groups]
            sf_reordered = [(_sf_permuted(g["a"]), _sf_permuted(g["b"])) for g in groups]
            sizes = [(g["m"], g["n"], g["k"], g["l"]) for g in groups]
            self.data = (abc, sf, sf_reordered, sizes)


def prepare(arg):
    """{"id": load id, "problem", "groups": [nvfp4bench_group as JSON]} -> {"id"}."""
    req = json.loads(arg)
    case = _Case(_modules[req["id"]], req["problem"], req["groups"])
    cid = _new_id()
    _cases[cid] = case
    return json.dumps({"id": cid})


def _stream(handle):
    s = _streams.get(handle)
    if s is None:
        s = _streams[handle] = torch.cuda.ExternalStream(handle)
    return s


def call(cid, stream):
    case = _cases[cid]
    case.out = None
    try:
        with torch.cuda.stream(_stream(stream)):
            case.out = case.fn(case.data)
    except BaseException as e:  # noqa: BLE001: whatever the submission raises is its ERROR row
        return "custom_kernel raised " + _last_line(e)
    return ""


def _describe(x):
    if isinstance(x, torch.Tensor):
        return "a {} tensor of shape {} on {}".format(str(x.dtype).replace("torch.", ""), tuple(x.shape), x.device)
    return "a {}".format(type(x).__name__)


def _check_one(got, c, what):
    want = "a float16 tensor of shape {} on cuda".format(tuple(c.shape))
    if not isinstance(got, torch.Tensor) or got.dtype != torch.float16 or tuple(got.shape) != tuple(c.shape) \
            or got.device.type != "cuda":
        return "{} is {}, want {}".format(what, _describe(got), want)
    return ""


def publish(cid, stream):
    """After a checked call: the output it returned must match gpu-mode's output_t; where it is not
    the c of the input tuple, its values are copied into c (on the stream, outside any timing)."""
    case = _cases[cid]
    got = case.out
    if case.problem == "group_gemm":
        if not isinstance(got, (list, tuple)):
            return "custom_kernel returned {}, want a list of {} float16 tensors (one c per group)".format(
                _describe(got), len(case.cs))
        if len(got) != len(case.cs):
            return "custom_kernel returned a list of {} outputs, want {} (one c per group)".format(len(got), len(case.cs))
        pairs = [(o, c, "output [{}]".format(i)) for i, (o, c) in enumerate(zip(got, case.cs))]
    else:
        pairs = [(got, case.cs[0], "the output")]
    for o, c, what in pairs:
        why = _check_one(o, c, what)
        if why:
            return "custom_kernel returned a wrong output: " + why
    with torch.cuda.stream(_stream(stream)):
        for o, c, _ in pairs:
            if o.data_ptr() != c.data_ptr() or o.stride() != c.stride():
                c.copy_(o)
    return ""


def release(cid):
    _cases.pop(cid, None)
    return ""


def _probe():
    """`python3 -c <this file> FILE...` (run/python_host.cpp, before anything is loaded): where this
    Python and its shared libpython are, its sys.path, and check_source of each FILE, as JSON."""
    import sysconfig
    v = sysconfig.get_config_vars()
    mm = "{}.{}".format(sys.version_info[0], sys.version_info[1])
    names = [v.get("INSTSONAME"), v.get("LDLIBRARY"), "libpython{}.so.1.0".format(mm), "libpython{}.so".format(mm)]
    dirs = [v.get("LIBDIR"), os.path.join(sys.base_prefix, "lib"), v.get("LIBPL")]
    if v.get("MULTIARCH"):
        dirs.append(os.path.join("/usr/lib", v["MULTIARCH"]))
    libs = []
    for d in dirs:
        for n in names:
            if d and n and ".so" in n:
                p = os.path.join(d, n)
                if os.path.isfile(p) and p not in libs:
                    libs.append(p)
    for n in names:  # last: the dynamic loader's own search (ld.so.cache)
        if n and ".so" in n and n not in libs:
            libs.append(n)
    print(json.dumps({
        "version": mm,
        "full_version": sys.version.split()[0],
        "executable": sys.executable,
        "home": "{}:{}".format(sys.base_prefix, sys.base_exec_prefix),
        "sys_path": [p for p in sys.path[1:]],
        "shared": bool(v.get("Py_ENABLE_SHARED")),
        "libpython": libs,
        "files": [check_source(p) for p in sys.argv[1:]],
    }))


if __name__ == "__main__":
    _probe()
