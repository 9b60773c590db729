"""Grading in the sandbox pool, shared by the kinds that run sympy on learner input (symbolic, derivation).

:func:`grade_sandboxed` sends a kind's module-level grading function, with the answer and a soft budget,
to a pool worker under a hard wall-clock limit (:func:`run_guarded`). In the worker, an unreadable answer
becomes ``invalid`` and one too deep or too large to read (``RecursionError``, ``MemoryError``) becomes
``invalid`` as too complex (:func:`grade_in_worker`); in the caller, a time-out is ``undecided`` with
the limit named and any other failure ``undecided`` as a checker error, so no attempt is used. A
malformed part (``SpecError``) is the author's error and is raised, never hidden.
"""

from __future__ import annotations

from typing import Any, Callable

from .. import sandbox
from ..worker_pool import TaskTimeout
from ..limits import GUARDED_CHECK_TIMEOUT
from ..verdict import AnswerParseError, Interpretation, SpecError, Verdict, msg
from .base import invalid_verdict, too_complex_verdict

#: A kind's grading function: (answer, spec, params, budget=seconds) -> Verdict; module level, so that
#: it travels to a worker by name.
GradeFn = Callable[..., Verdict]


def timeout_verdict(timeout: float, interp: Interpretation | None = None) -> Verdict:
    return Verdict("undecided", 0.0,
                   msg("The check did not finish within %(seconds)s s; no attempt was used. "
                       "Try a simpler form of your answer.", seconds=f"{timeout:g}"),
                   "timeout", interp, {"timeout": timeout})


def error_verdict(exc: BaseException, interp: Interpretation | None = None) -> Verdict:
    return Verdict("undecided", 0.0,
                   msg("The checker could not process this answer; no attempt was used."),
                   "checker_error", interp, {"error": type(exc).__name__})


def run_guarded(fn, *args, timeout: float = GUARDED_CHECK_TIMEOUT, interp: Interpretation | None = None) -> Verdict:
    """Run a grading function in the sandbox; time-outs and crashes become ``undecided``."""
    try:
        return sandbox.run(fn, *args, timeout=timeout)
    except TaskTimeout:
        return timeout_verdict(timeout, interp)
    except AnswerParseError as err:
        return Verdict("invalid", 0.0, dict(err.texts), "parse_error", interp,
                       {"error": err.to_dict()})
    except SpecError:
        raise  # a malformed part is the author's error and must be seen
    except Exception as exc:  # sandbox failures, and sympy/mpmath errors on odd input: never a crash
        return error_verdict(exc, interp)


def grade_in_worker(grade: GradeFn, raw: Any, spec: dict, params: dict, budget: float) -> Verdict:
    """Parse and grade one answer within ``budget`` seconds; runs in a sandbox worker."""
    try:
        return grade(raw, spec, params, budget=budget)
    except AnswerParseError as err:
        return invalid_verdict(err)
    except (RecursionError, MemoryError) as exc:
        return too_complex_verdict(exc)


def grade_sandboxed(grade: GradeFn, raw: Any, spec: Any, params: Any, budget: float, timeout: float) -> Verdict:
    """``grade`` in a pool worker with soft ``budget`` and hard ``timeout`` seconds; only plain copies of
    the spec and parameters travel (nothing of the caller's own types)."""
    return run_guarded(grade_in_worker, grade, raw, dict(spec), dict(params), budget, timeout=timeout)


__all__ = ["error_verdict", "grade_in_worker", "grade_sandboxed", "run_guarded", "timeout_verdict"]
