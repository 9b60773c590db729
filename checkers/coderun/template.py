"""The warm template process that forks one locked-down child per code submission.

Run as a *script* (``python -I checkers/coderun/template.py SOCKET_FD``), never imported from the
project: the process must not hold the project's packages in ``sys.modules``, or learner code could reach
the reference engine through them. It imports what learner code may use (torch, numpy, math and a few
pure-Python standard modules) once, so a submission pays a ``fork`` and not torch's import.

Protocol on the control socket (``AF_UNIX``, ``SOCK_SEQPACKET``), one request at a time:

* the client sends ``b"run"`` with two descriptors attached (``SCM_RIGHTS``): the read end of the
  input pipe and the write end of the result pipe;
* the template forks; the child locks itself down (see :func:`_lock_down`), reads one JSON payload from
  the input pipe, runs the cases and writes one JSON line per event to the result pipe;
* the template answers ``{"pid": n}`` so that the client can kill the child at its wall-clock limit.

Every number leaves the child as JSON text (non-finite values as the strings ``"nan"``, ``"inf"``,
``"-inf"``); the client parses and compares it. Nothing the child sends is ever unpickled or executed.
"""

from __future__ import annotations

import array
import errno
import inspect
import io
import json
import math
import os
import resource
import signal
import socket
import sys
import traceback

# Learner code may import these; loading them here means the child needs no file access to do so.
import collections  # noqa: F401
import dataclasses  # noqa: F401
import functools  # noqa: F401
import itertools  # noqa: F401
import operator  # noqa: F401
import random  # noqa: F401
import statistics  # noqa: F401
import typing  # noqa: F401
# The compiler normalises non-ASCII identifiers (NFKC: ``δ``, ``λ``) through unicodedata, an extension module
# it loads on first use: loaded here, as the sealed child could not open its file.
import unicodedata  # noqa: F401

import numpy  # noqa: F401
import torch

try:  # the system library is bound through ctypes, which must be loaded before the child is sealed
    import pyseccomp
except Exception:  # noqa: BLE001 - reported to the client, which then refuses to run code
    pyseccomp = None

PROJECT_PACKAGES = ("checkers", "quizapp")

# The harness keeps its own references to the torch functions it uses to read results, so that learner
# code that patches ``torch.Tensor.tolist`` and friends changes only its own view. (The numbers still get
# checked by the client; this only keeps the report about the learner's real outputs.)
_TENSOR = torch.Tensor
_DETACH = torch.Tensor.detach
_TO = torch.Tensor.to
_RESHAPE = torch.Tensor.reshape
_TOLIST = torch.Tensor.tolist
_IS_COMPLEX = torch.Tensor.is_complex
_GRAD = torch.autograd.grad
_AS_TENSOR = torch.tensor
_REQUIRES_GRAD = torch._C.TensorBase.requires_grad.__get__   # the flag itself, whatever the learner patches
_SIGNATURE = inspect.signature
OUTPUT_CAP = 64 * 1024          # characters of the learner's printed output kept for feedback
NOBODY = 65534

# System calls a sealed child may make. Everything else fails with EPERM: no open, no exec, no fork,
# no sockets, no signals to other processes, no changing limits or identity.
ALLOWED_SYSCALLS = (
    "read", "write", "readv", "writev", "close", "lseek", "fstat", "fcntl",
    "mmap", "munmap", "mremap", "mprotect", "madvise", "brk",
    "futex", "sched_yield", "sched_getaffinity", "set_robust_list", "rseq",
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack",
    "getpid", "gettid", "getuid", "geteuid", "getgid", "getegid",
    "clock_gettime", "clock_getres", "gettimeofday", "nanosleep", "clock_nanosleep",
    "getrandom", "getrusage", "times", "exit", "exit_group",
)


class _ProjectBlocker:
    """A meta-path finder that refuses the project's packages (the engine must stay out of reach)."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in PROJECT_PACKAGES:
            raise ImportError(f"module {name!r} is not available to submitted code")
        return None


class _CappedText(io.TextIOBase):
    """stdout/stderr of the learner: kept in memory, at most ``OUTPUT_CAP`` characters."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.truncated = False

    def writable(self) -> bool:
        return True

    def write(self, text) -> int:
        text = str(text)
        room = OUTPUT_CAP - self.size
        if room > 0:
            self.parts.append(text[:room])
            self.size += min(room, len(text))
        if len(text) > max(room, 0):
            self.truncated = True
        return len(text)

    def getvalue(self) -> str:
        return "".join(self.parts)


def _set_limits(limits: dict) -> None:
    cpu = int(limits["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    memory = int(limits["memory_bytes"])
    resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))


def _seal() -> None:
    if pyseccomp is None:
        raise RuntimeError("libseccomp is not available")
    flt = pyseccomp.SyscallFilter(defaction=pyseccomp.ERRNO(errno.EPERM))
    for name in ALLOWED_SYSCALLS:
        try:
            flt.add_rule(pyseccomp.ALLOW, name)
        except Exception:  # noqa: BLE001 - a call this kernel/arch does not have
            pass
    flt.load()


def _lock_down(keep: tuple[int, ...], workdir: str, limits: dict) -> None:
    """Everything that happens to a child before it reads learner code, in this order."""
    os.setsid()                                    # its own process group: killed as one
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    start = 3
    for fd in sorted(keep):
        os.closerange(start, fd)
        start = fd + 1
    os.closerange(start, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    os.chdir(workdir)
    os.environ.clear()
    for name in list(sys.modules):
        if name.split(".")[0] in PROJECT_PACKAGES:
            del sys.modules[name]
    sys.path[:] = [p for p in sys.path if "site-packages" in p or p.endswith(".zip")]
    sys.meta_path.insert(0, _ProjectBlocker())
    _set_limits(limits)
    if os.getuid() == 0:                           # a root child would ignore RLIMIT_NPROC
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
    _seal()


# ------------------------------------------------------------------------------------------- values


def _to_json_number(x: float):
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _from_json_number(x) -> float:
    return float(x) if not isinstance(x, str) else float(x)


def _tensor_in(spec: dict) -> torch.Tensor:
    dtype = {"float64": torch.float64, "float32": torch.float32, "int64": torch.int64,
             "bool": torch.bool}[spec["dtype"]]
    flat = [_from_json_number(v) for v in spec["data"]]
    t = torch.tensor(flat, dtype=torch.float64).reshape(spec["shape"]).to(dtype)
    if spec.get("requires_grad"):
        t.requires_grad_(True)
    return t


def _value_in(value):
    if isinstance(value, dict) and "tensor" in value:
        return _tensor_in(value["tensor"])
    return value


def _tensor_out(t) -> dict:
    """A learner's output as plain numbers, refusing anything that is not a real tensor of numbers."""
    if type(t) is not _TENSOR:
        if type(t) in (int, float):
            t = _AS_TENSOR(float(t), dtype=torch.float64)
        else:
            raise TypeError(f"expected a torch.Tensor, got {type(t).__name__}")
    t = _DETACH(t)
    if _IS_COMPLEX(t):
        raise TypeError("complex tensors are not accepted")
    dtype = str(t.dtype).replace("torch.", "")
    flat = _TOLIST(_RESHAPE(_TO(t, torch.float64), (-1,)))
    return {"dtype": dtype, "shape": list(t.shape), "data": [_to_json_number(float(v)) for v in flat]}


def _learner_frames(tb) -> list[str]:
    frames = [f for f in traceback.extract_tb(tb) if f.filename == "<submission>"]
    return [f"line {f.lineno}, in {f.name}" for f in frames][-5:]


def _error(exc: BaseException) -> dict:
    return {"type": type(exc).__name__, "message": str(exc)[:500], "where": _learner_frames(exc.__traceback__)}


def _named_parameters(fn) -> set:
    """The keyword names ``fn`` declares (not a ``**kwargs`` catch-all); empty when it has no signature."""
    try:
        params = _SIGNATURE(fn).parameters.values()
    except Exception:  # noqa: BLE001 - a callable without a readable signature takes no optional arguments
        return set()
    return {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def _run_case(fn, case: dict) -> dict:
    kwargs = {name: _value_in(v) for name, v in case["kwargs"].items()}
    optional = case.get("optional_kwargs") or {}
    if optional:   # fixed hyperparameters, passed only where the learner's signature names them
        named = _named_parameters(fn)
        kwargs.update({name: _value_in(v) for name, v in optional.items() if name in named and name not in kwargs})
    result = fn(**kwargs)
    names = case["outputs"]
    if isinstance(result, dict):
        missing = [n for n in names if n not in result]
        if missing:
            raise KeyError(f"the returned dict has no {', '.join(map(repr, missing))}")
        outs = {n: result[n] for n in names}
    elif len(names) == 1:
        outs = {names[0]: result}
    else:
        raise TypeError(f"return a dict with the outputs {', '.join(map(repr, names))}")
    reply = {"outputs": {n: _tensor_out(v) for n, v in outs.items()}}
    wrt = [n for n in case.get("grad_wrt", []) if isinstance(kwargs.get(n), torch.Tensor)]
    if case.get("grad_wrt"):
        # Whether each output is still in the autograd graph: where the reference detaches an output,
        # the client grades one that is not as not_detached.
        reply["attached"] = {n: bool(type(v) is _TENSOR and _REQUIRES_GRAD(v)) for n, v in outs.items()}
    if wrt:
        total = None
        for n, cot in case.get("cotangents", {}).items():
            out = outs[n]
            # An output cut off from the inputs (detached, or rebuilt from Python numbers) has zero
            # gradient; the client then reports "values right, gradients wrong".
            if type(out) is not _TENSOR or not out.requires_grad:
                continue
            term = (_TO(out, torch.float64) * _tensor_in(cot)).sum()
            total = term if total is None else total + term
        grads = (None,) * len(wrt) if total is None else \
            _GRAD(total, [kwargs[n] for n in wrt], allow_unused=True)
        reply["grads"] = {n: (None if g is None else _tensor_out(g)) for n, g in zip(wrt, grads)}
    return reply


def _child_main(in_fd: int, out_fd: int, workdir: str) -> None:
    out = os.fdopen(out_fd, "w", buffering=1)

    def send(obj) -> None:
        out.write(json.dumps(obj, allow_nan=False) + "\n")

    try:
        with os.fdopen(in_fd, "rb") as f:
            payload = json.loads(f.read())
        _lock_down((out_fd,), workdir, payload["limits"])
    except BaseException as exc:  # noqa: BLE001
        send({"fatal": {"note": "sandbox_unavailable", "message": f"{type(exc).__name__}: {exc}"}})
        out.flush()
        os._exit(3)

    captured = _CappedText()
    sys.stdout = sys.stderr = captured
    torch.set_num_threads(1)
    try:
        code = compile(payload["source"], "<submission>", "exec")
    except SyntaxError as exc:
        send({"fatal": {"note": "syntax_error", "message": exc.msg, "line": exc.lineno,
                        "column": exc.offset}})
        os._exit(0)
    namespace = {"__name__": "submission", "__builtins__": __builtins__}
    try:
        exec(code, namespace)  # the learner's module body, inside the sealed child
    except BaseException as exc:  # noqa: BLE001
        send({"fatal": {"note": "exception", "error": _error(exc)}})
        os._exit(0)
    fn = namespace.get(payload["function"])
    if not callable(fn):
        send({"fatal": {"note": "missing_function",
                        "message": f"define a function named {payload['function']}"}})
        os._exit(0)
    for case in payload["cases"]:
        try:
            reply = _run_case(fn, case)
            reply["case"] = case["id"]
        except TypeError as exc:
            reply = {"case": case["id"], "error": _error(exc), "signature": "unexpected keyword" in str(exc)
                     or "positional argument" in str(exc)}
        except MemoryError as exc:
            reply = {"case": case["id"], "error": _error(exc), "resource": "memory"}
        except BaseException as exc:  # noqa: BLE001
            reply = {"case": case["id"], "error": _error(exc)}
        try:
            send(reply)
        except (TypeError, ValueError) as exc:
            send({"case": case["id"], "error": {"type": type(exc).__name__, "message": str(exc)[:200],
                                                 "where": []}})
    send({"done": True, "output": captured.getvalue()[:4000], "output_truncated": captured.truncated})
    out.flush()
    os._exit(0)


# ------------------------------------------------------------------------------------------ template


def _serve(sock: socket.socket, workdir: str) -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    while True:
        try:
            msg, fds, _flags, _addr = socket.recv_fds(sock, 16, 2)
        except (ConnectionError, OSError):
            return
        if not msg:
            return
        if len(fds) != 2:
            for fd in fds:
                os.close(fd)
            sock.send(json.dumps({"error": "expected two descriptors"}).encode())
            continue
        in_fd, out_fd = fds
        pid = os.fork()
        if pid == 0:
            try:
                sock.close()
                _child_main(in_fd, out_fd, workdir)
            finally:
                os._exit(4)
        os.close(in_fd)
        os.close(out_fd)
        sock.send(json.dumps({"pid": pid}).encode())


def main(argv: list[str]) -> None:
    sock = socket.socket(fileno=int(argv[1]))
    workdir = argv[2]
    torch.set_num_threads(1)
    torch.ones(2, dtype=torch.float64).sum()       # pay torch's first-op costs once, here
    status = {"ready": True, "seccomp": pyseccomp is not None}
    sock.send(json.dumps(status).encode())
    _serve(sock, workdir)


if __name__ == "__main__":
    main(sys.argv)
