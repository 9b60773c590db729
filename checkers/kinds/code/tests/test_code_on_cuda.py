"""Code grading with the engine on CUDA (``QUIZ_DEVICE=cuda``): the learner's code runs on the CPU in the
sealed child, the engine's outputs and gradients are brought back to the CPU before they are compared.

These tests need a GPU and are skipped only where CUDA is not available (``scripts/gpu-check`` runs them
on a GPU machine); the CPU suite covers the same grading with the engine on the CPU.
"""

from __future__ import annotations

import pytest
import torch

from checkers.bank import load_bank_files
from checkers.kinds.code import grade as code_grade
from checkers.kinds.code.cases import CaseBuilder
from checkers.kinds.code.checker import CodeChecker
from checkers.kinds.code.standalone import standalone_spec
from checkers.reference import names
from pathlib import Path
from standalone_impls import IMPLEMENTATIONS

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA: the engine on a GPU")

CHECKER = CodeChecker()
QUESTIONS = Path(__file__).resolve().parents[4] / "questions"


@pytest.fixture(autouse=True)
def engine_on_cuda(monkeypatch):
    monkeypatch.setenv("QUIZ_DEVICE", "cuda")
    code_grade.VERDICTS.clear()     # verdicts graded with the engine elsewhere do not count
    yield
    code_grade.VERDICTS.clear()


def test_the_engine_runs_on_cuda_and_the_reference_comes_back_on_the_cpu():
    spec = standalone_spec("advantages.gae")
    builder = CaseBuilder(spec)
    case = next(c for c in builder.hidden() if c.grad)
    ref = builder.reference_full(case, ["advantages", "returns"])
    assert all(t.device.type == "cpu" for t in ref.outputs.values())
    assert ref.attached == {"advantages": False, "returns": False}
    from checkers import reference
    assert reference.call("kl.k3", log_prob=[-1.0], ref_log_prob=[-1.5])["kl"].device.type == "cuda"


@pytest.mark.parametrize("name", names())
def test_every_function_grades_its_independent_implementation_on_cuda(name):
    assert name in IMPLEMENTATIONS
    spec = standalone_spec(name)
    good = CHECKER.grade(IMPLEMENTATIONS[name], spec, {})
    assert good.status == "correct", (name, good.note, good.feedback["en"])


def _code_parts():
    return [(f"{q['id']}/{p['id']}", p) for _, q in load_bank_files(QUESTIONS) for p in q["parts"]
            if p["kind"] == "code"]


@pytest.mark.parametrize("pid, part", _code_parts(), ids=[pid for pid, _ in _code_parts()])
def test_every_code_exercise_grades_its_solution_and_its_bugs_on_cuda(pid, part):
    verdict = CHECKER.grade(part["solution"], part, {})
    assert verdict.status == "correct", (pid, verdict.note, verdict.feedback["en"])
    for buggy in part.get("buggy") or []:
        wrong = CHECKER.grade(buggy["source"], part, {})
        assert (wrong.status, wrong.note) == ("incorrect", buggy["note"]), (pid, wrong.feedback["en"])
