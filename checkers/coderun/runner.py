"""Client side of the code sandbox: start the warm template, hand it a submission, read plain numbers back.

Learner code never runs in this process. :func:`run` asks the template process
(:mod:`checkers.coderun.template`, started lazily, once per process and again after a ``fork``) for a
fresh sealed child, writes the payload (source, function name, cases, limits) to it, and reads JSON lines
back until the child says ``done``, dies, or passes its wall-clock limit, when it is killed with its whole
process group. The caller compares the numbers; nothing from the child is executed or unpickled.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import child_cpus
from ..sandbox import notify_kill
from .limits import CodeLimits

TEMPLATE_SCRIPT = Path(__file__).with_name("template.py")


class SandboxUnavailable(RuntimeError):
    """The template could not start or cannot seal a child (no libseccomp): code is never run unsealed."""


@dataclass
class RunOutcome:
    """What came back from one child: per-case replies, or a fatal note before any case ran."""

    cases: dict[str, dict] = field(default_factory=dict)
    fatal: dict | None = None
    output: str = ""
    timed_out: bool = False
    died: bool = False
    too_large: bool = False


class _Template:
    def __init__(self) -> None:
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.workdir = tempfile.mkdtemp(prefix="coderun-")
        os.chmod(self.workdir, 0o555)
        env = {"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "OPENBLAS_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"}
        with child_cpus.for_children():  # every run is forked from the template: it gets the same CPUs
            self.proc = subprocess.Popen(
                [sys.executable, "-I", str(TEMPLATE_SCRIPT), str(child.fileno()), self.workdir],
                pass_fds=(child.fileno(),), env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.workdir,
                start_new_session=True)
        child.close()
        self.sock = parent
        self.lock = threading.Lock()
        self.pid = os.getpid()
        parent.settimeout(CodeLimits().template_start_seconds)
        try:
            hello = json.loads(parent.recv(4096) or b"{}")
        except (OSError, ValueError) as exc:
            self.close()
            raise SandboxUnavailable(f"the code sandbox did not start: {exc}") from None
        parent.settimeout(None)
        if not hello.get("ready"):
            self.close()
            raise SandboxUnavailable("the code sandbox did not start")
        if not hello.get("seccomp"):
            self.close()
            raise SandboxUnavailable("libseccomp is not available: submitted code is never run unsealed")

    def spawn(self, in_fd: int, out_fd: int) -> int:
        with self.lock:
            socket.send_fds(self.sock, [b"run"], [in_fd, out_fd])
            reply = json.loads(self.sock.recv(4096) or b"{}")
        if "pid" not in reply:
            raise SandboxUnavailable(f"the code sandbox refused the request: {reply}")
        return int(reply["pid"])

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        try:
            self.sock.close()
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(5)


_TEMPLATE: _Template | None = None
_TEMPLATE_LOCK = threading.Lock()


def _template() -> _Template:
    global _TEMPLATE
    with _TEMPLATE_LOCK:
        t = _TEMPLATE
        # A forked web worker must not share its parent's control socket: it starts its own template.
        if t is None or t.pid != os.getpid() or not t.alive():
            _TEMPLATE = t = _Template()
        return t


def _kill_group(pid: int) -> None:
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
            return
        except (ProcessLookupError, PermissionError):
            continue


def run(source: str, function: str, cases: list[dict[str, Any]], limits: CodeLimits | None = None) -> RunOutcome:
    """Run ``function`` from ``source`` on ``cases`` in a fresh sealed child; never raises for learner code.

    Each case is ``{"id", "kwargs": {name: value | {"tensor": {dtype, shape, data, requires_grad}}},
    "outputs": [names], "grad_wrt"?: [names], "cotangents"?: {output: tensor}}``.
    Raises :class:`SandboxUnavailable` only when no sealed child can be had.
    """
    limits = limits or CodeLimits()
    payload = json.dumps({"source": source, "function": function, "cases": cases,
                          "limits": {"cpu_seconds": limits.cpu_seconds,
                                     "memory_bytes": limits.memory_bytes}}).encode()
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    try:
        pid = _template().spawn(in_r, out_w)
    finally:
        os.close(in_r)
        os.close(out_w)
    outcome = RunOutcome()
    try:
        _write_all(in_w, payload)
    except BrokenPipeError:
        pass
    finally:
        os.close(in_w)
    try:
        _read_replies(out_r, pid, limits, outcome)
        if outcome.timed_out or outcome.too_large:
            notify_kill("code_timeout" if outcome.timed_out else "code_output")
    finally:
        os.close(out_r)
        _kill_group(pid)   # whatever it left behind goes with it
    return outcome


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _read_replies(fd: int, pid: int, limits: CodeLimits, outcome: RunOutcome) -> None:
    deadline = _now() + limits.wall_seconds
    buf = bytearray()
    while True:
        left = deadline - _now()
        if left <= 0:
            outcome.timed_out = True
            return
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            outcome.timed_out = True
            return
        chunk = os.read(fd, 65536)
        if not chunk:
            outcome.died = True      # closed before "done": killed by a limit, or exited early
            return
        buf += chunk
        if len(buf) > limits.reply_bytes:
            outcome.too_large = True
            return
        while b"\n" in buf:
            line, _, rest = bytes(buf).partition(b"\n")
            buf = bytearray(rest)
            try:
                event = json.loads(line)
            except ValueError:
                outcome.died = True
                return
            if not isinstance(event, dict):
                continue
            if "fatal" in event:
                outcome.fatal = event["fatal"] if isinstance(event["fatal"], dict) else {"note": "exception"}
                return
            if event.get("done"):
                outcome.output = str(event.get("output", ""))[:4000]
                outcome.died = False
                return
            case_id = event.get("case")
            if isinstance(case_id, str) and case_id not in outcome.cases:
                outcome.cases[case_id] = event


def _now() -> float:
    return time.monotonic()   # the child's wall-clock limit is the one place where real time is the point


def shutdown() -> None:
    """Stop this process's template (tests and interpreter exit)."""
    global _TEMPLATE
    with _TEMPLATE_LOCK:
        if _TEMPLATE is not None and _TEMPLATE.pid == os.getpid():
            _TEMPLATE.close()
        _TEMPLATE = None
