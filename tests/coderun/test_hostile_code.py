"""Hostile submissions against the code sandbox: every one is contained and answered with an outcome.

Each row is learner source whose function ``f(x)`` tries one escape. The assertions check the defence
itself (the call failed with the error the seal produces, or the child was stopped at the limit the test
sets), never how long anything took.
"""

from __future__ import annotations

import os

import pytest

from checkers import coderun
from checkers.coderun import CodeLimits

LIMITS = CodeLimits(wall_seconds=20.0, cpu_seconds=1)


def _case(data=(1.0, 2.0)):
    return {"id": "c1", "kwargs": {"x": {"tensor": {"dtype": "float64", "shape": [len(data)], "data": list(data),
                                                    "requires_grad": False}}}, "outputs": ["y"]}


def run(src: str, limits: CodeLimits = LIMITS):
    return coderun.run(src, "f", [_case()], limits)


def error_of(outcome) -> dict:
    reply = outcome.cases["c1"]
    assert "error" in reply, reply
    return reply["error"]


DENIED = {
    "read a file": "def f(x):\n    return open('/etc/passwd').read()",
    "list a folder": "import os\ndef f(x):\n    return os.listdir('/')",
    "write a file": "def f(x):\n    open('/tmp/escaped', 'w').write('x')\n    return x",
    "open a socket": "import socket\ndef f(x):\n    socket.socket()\n    return x",
    "fork": "import os\ndef f(x):\n    os.fork()\n    return x",
    "exec a shell": "import os\ndef f(x):\n    os.execv('/bin/sh', ['sh'])",
    "signal the parent": "import os, signal\ndef f(x):\n    os.kill(os.getppid(), signal.SIGKILL)\n    return x",
    "raise a limit": "import resource\ndef f(x):\n    resource.setrlimit(resource.RLIMIT_CPU, (100, 100))\n    return x",
}


@pytest.mark.parametrize("name", sorted(DENIED))
def test_system_access_is_refused(name):
    err = error_of(run(DENIED[name]))
    assert err["type"] in ("PermissionError", "ValueError"), err
    assert err["where"] and err["where"][0].startswith("line ")


def test_no_file_was_written():
    run(DENIED["write a file"])
    assert not os.path.exists("/tmp/escaped")


def test_the_project_cannot_be_imported():
    err = error_of(run("def f(x):\n    import checkers.reference\n    return x"))
    assert err["type"] == "ImportError" and "not available" in err["message"]
    err = error_of(run("def f(x):\n    import quizapp\n    return x"))
    assert err["type"] == "ImportError"


def test_no_project_module_is_loaded_in_the_child():
    src = ("import sys, torch\ndef f(x):\n"
           "    return torch.tensor(float(sum(1 for m in sys.modules if m.split('.')[0] in ('checkers', 'quizapp'))))")
    reply = run(src).cases["c1"]
    assert reply["outputs"]["y"]["data"] == [0.0]


def test_environment_is_empty():
    reply = run("import os, torch\ndef f(x):\n    return torch.tensor(float(len(os.environ)))").cases["c1"]
    assert reply["outputs"]["y"]["data"] == [0.0]


def test_threads_cannot_start():
    err = error_of(run("import threading\ndef f(x):\n    threading.Thread(target=print).start()\n    return x"))
    assert err["type"] == "RuntimeError"


def test_cpu_bomb_is_stopped_by_the_cpu_limit():
    outcome = run("def f(x):\n    while True:\n        pass", CodeLimits(wall_seconds=30.0, cpu_seconds=1))
    assert outcome.died and not outcome.cases


def test_sleeping_child_is_killed_at_the_wall_clock_limit():
    outcome = run("import time\ndef f(x):\n    time.sleep(60)", CodeLimits(wall_seconds=1.0, cpu_seconds=1))
    assert outcome.timed_out and not outcome.cases


def test_memory_bomb_hits_the_memory_limit():
    err = error_of(run("def f(x):\n    b = bytearray(8 << 30)\n    return x"))
    assert err["type"] == "MemoryError"
    err = error_of(run("import torch\ndef f(x):\n    return torch.empty(1 << 33)"))
    assert "memory" in err["message"].lower() or err["type"] in ("RuntimeError", "MemoryError")


def test_huge_output_is_capped():
    outcome = run("def f(x):\n    print('A' * 10**7)\n    return x * 2")
    assert outcome.cases["c1"]["outputs"]["y"]["data"] == [2.0, 4.0]
    assert 0 < len(outcome.output) <= 4000


def test_exiting_early_gives_no_result():
    outcome = run("import os\ndef f(x):\n    os._exit(0)")
    assert outcome.died and not outcome.cases


def test_odd_return_types_are_refused():
    err = error_of(run("def f(x):\n    class F(float):\n        pass\n    return F(3.0)"))
    assert err["type"] == "TypeError"
    err = error_of(run("import torch\nclass M(torch.Tensor):\n    pass\ndef f(x):\n    return x.as_subclass(M)"))
    assert err["type"] == "TypeError"


def test_patching_torch_does_not_change_the_reported_numbers():
    src = "import torch\ntorch.Tensor.tolist = lambda self: [42.0]\ndef f(x):\n    return x * 2"
    assert run(src).cases["c1"]["outputs"]["y"]["data"] == [2.0, 4.0]


def test_writing_to_a_guessed_descriptor_fails():
    src = "import os\ndef f(x):\n    for fd in range(3, 64):\n        try:\n            os.write(fd, b'{}\\n')\n        except OSError:\n            pass\n    return x"
    outcome = run(src)
    # Whatever it managed to write, the one reply for the case is the harness's own, with the real numbers.
    assert outcome.cases["c1"]["outputs"]["y"]["data"] == [1.0, 2.0]


def test_syntax_error_and_missing_function_are_reported_before_any_case():
    out = run("def f(x) return x")
    assert out.fatal["note"] == "syntax_error" and out.fatal["line"] == 1
    assert run("def g(x):\n    return x").fatal["note"] == "missing_function"


def test_exception_at_import_is_reported():
    out = run("raise ValueError('boom')\ndef f(x):\n    return x")
    assert out.fatal["note"] == "exception" and out.fatal["error"]["type"] == "ValueError"


def test_the_sandbox_still_answers_after_every_attack():
    for src in DENIED.values():
        run(src)
    assert run("def f(x):\n    return x + 1").cases["c1"]["outputs"]["y"]["data"] == [2.0, 3.0]
