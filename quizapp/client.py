"""Check a function of your own against the reference engine, from a notebook or a script.

    import torch
    from quizapp.client import check

    def my_k3(log_prob, ref_log_prob):
        x = ref_log_prob - log_prob
        return torch.exp(x) - x - 1

    check(my_k3, "kl.k3")                                   # prints the verdict and the first difference
    check(my_ipo, "dpo.loss", args={"beta": 0.1, "loss_type": "ipo"})

:func:`check` sends the function's source (``inspect.getsource``) to ``POST /api/v1/check/code``, which
runs it in a sealed process on the engine's test cases and compares every output (and, in a gradient
case, the gradients) with the engine. What the function uses from your notebook travels with it: the
modules it refers to become import lines (``torch``, ``F`` for ``torch.nn.functional``, ``np``, ``math``),
helper functions it calls are sent too, and plain constants (numbers, strings) as assignments.

This module needs only the standard library: copy this one file next to your notebook when the project
is not installed. The server's address is ``url=``, else the ``QUIZ_URL`` environment variable, else
``http://127.0.0.1:5000`` (``scripts/serve``).
"""

from __future__ import annotations

import inspect
import json
import os
import textwrap
import types
import urllib.error
import urllib.request
from typing import Any, Callable

DEFAULT_URL = "http://127.0.0.1:5000"
_CONSTANTS = (bool, int, float, str)


def _names(code: types.CodeType) -> set[str]:
    """Global names a code object and the code nested in it (comprehensions, inner functions) use."""
    out = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out |= _names(const)
    return out


def source_of(fn: Callable[..., Any]) -> str:
    """The source of ``fn`` with what it needs from its module: imports, helper functions, constants."""
    imports: dict[str, str] = {}
    pieces: list[str] = []
    seen: set[str] = set()

    def add(f: types.FunctionType) -> None:
        if f.__name__ in seen:
            return
        seen.add(f.__name__)
        for name in sorted(_names(f.__code__)):
            value = f.__globals__.get(name)
            if isinstance(value, types.ModuleType):
                module = value.__name__
                imports[name] = f"import {module}" if name == module else f"import {module} as {name}"
            elif isinstance(value, types.FunctionType) and value.__module__ == f.__module__ and name not in seen:
                add(value)
            elif isinstance(value, _CONSTANTS) and name not in seen:
                seen.add(name)
                pieces.insert(0, f"{name} = {value!r}\n")
        pieces.append(textwrap.dedent(inspect.getsource(f)))

    if not isinstance(fn, types.FunctionType):
        raise TypeError(f"check() takes a Python function, got {type(fn).__name__}")
    add(fn)
    head = "".join(line + "\n" for line in sorted(imports.values()))
    return head + "\n\n" + "\n\n".join(p.rstrip("\n") + "\n" for p in pieces)


def check(fn: Callable[..., Any], function: str, *, args: dict[str, Any] | None = None,
          outputs: list[str] | None = None, convention: str | None = None, url: str | None = None,
          lang: str = "en", show: bool = True, timeout: float = 120.0) -> dict[str, Any]:
    """Grade ``fn`` as an implementation of the engine function ``function`` (e.g. ``"kl.k3"``).

    ``args`` fixes hyperparameters (``{"beta": 0.1, "loss_type": "ipo"}``); ``outputs`` names the outputs
    to grade (then return a dict keyed by them); ``convention`` picks verl / trl / openrlhf where the
    function has one. Returns the server's verdict (``status``, ``note``, ``feedback``, ``details``) and,
    with ``show``, prints it with the first difference. A refused request raises :class:`CheckError`.
    """
    body: dict[str, Any] = {"function": function, "source": source_of(fn), "lang": lang}
    if fn.__name__ != function.rsplit(".", 1)[-1]:
        body["name"] = fn.__name__
    for key, value in (("args", args), ("outputs", outputs), ("convention", convention)):
        if value is not None:
            body[key] = value
    base = (url or os.environ.get("QUIZ_URL") or DEFAULT_URL).rstrip("/")
    request = urllib.request.Request(f"{base}/api/v1/check/code", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:
            result = json.loads(resp.read())
    except urllib.error.HTTPError as err:
        error = (json.loads(err.read() or b"{}") or {}).get("error") or {}
        raise CheckError(err.code, error.get("field"), error.get("message", str(err))) from None
    if show:
        print(report(result))
    return result


class CheckError(RuntimeError):
    """The server refused the request (an unknown function, an ``args`` value the engine rejects...)."""

    def __init__(self, status: int, field: str | None, message: str):
        super().__init__(f"{status} {field or ''}: {message}".replace(" :", ":"))
        self.status, self.field, self.message = status, field, message


def report(result: dict[str, Any]) -> str:
    """A verdict as text: status and feedback, then the first failing case's difference and inputs."""
    lines = [f"{result.get('function')}: {result.get('status')}"
             + (f" ({result['note']})" if result.get("note") else ""), str(result.get("feedback") or "")]
    first = (result.get("details") or {}).get("first_failure")
    if first:
        for what, block in (("output", first.get("outputs") or {}), ("gradient of", first.get("grads") or {})):
            for name, cmp in block.items():
                if cmp.get("match") or cmp.get("first_mismatch") is None:   # equal, or no element compared
                    continue
                index = "".join(f"[{i}]" for i in cmp["first_mismatch"])
                err = cmp["max_abs_err"]   # a number, or "inf" where a non-finite value differs
                lines.append(f"  {what} {name}{index}: expected {cmp['expected_value']}, got {cmp['got_value']} "
                             f"({cmp['mismatches']} differ; max abs err "
                             f"{format(err, '.3g') if isinstance(err, float) else err})")
        for name, value in (first.get("inputs") or {}).items():
            lines.append(f"  input {name} = {value}")
    return "\n".join(line for line in lines if line)
