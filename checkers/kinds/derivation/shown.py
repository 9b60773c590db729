"""What "interpreted as" shows for a derivation: each line as the learner typed it.

A line is read by the maths parser into sympy, which reorders and evaluates (``b + a`` becomes
``a + b``), so showing the built expression would show a step the learner did not write. Each line is
rendered instead from its parse tree (:func:`checkers.mathparse.typed.typed_forms`, the renderer the
symbolic parts use): terms, factors and divisions in the order typed, only implicit products written out
(``2x`` -> ``2*x``, ``2 · x``). A continuation line (``= ...``) keeps its leading ``=``.

The three forms of the whole answer: ``text`` one line per step, ``latex`` lines joined by ``\\\\``,
``mathml`` one top-level ``<mrow>`` per line (the page splits it back into one formula per step),
``spoken`` one line per step (:mod:`checkers.mathparse.spoken`, the text a screen reader reads).
A line the typed renderer cannot read again falls back to sympy's form of that line, never to an error:
the line was read once already, by the same parser within its size and depth bounds.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...languages import LANGS
from ...mathparse.spoken import speak_mathml
from ...mathparse.typed import typed_forms
from ...verdict import AnswerParseError, Interpretation


def _typed_line(line: Any, spec: Mapping[str, Any]) -> tuple[str, str, str]:
    variables, functions = spec.get("variables") or {}, spec.get("functions") or {}
    if line.kind == "cont":
        body = line.text.lstrip()[1:]
        text, latex, mathml = typed_forms(body, variables, functions)
        return f"= {text}", f"= {latex}", f"<mo>=</mo>{mathml}"
    return typed_forms(line.text, variables, functions, allow_relation=True)


def _sympy_line(line: Any) -> tuple[str, str, str]:
    p = line.parsed
    return str(p.text), p.latex or "", p.mathml or ""


def line_forms(line: Any, spec: Mapping[str, Any]) -> tuple[str, str, str]:
    """``(text, latex, mathml)`` of one parsed derivation line, as typed."""
    try:
        return _typed_line(line, spec)
    except (AnswerParseError, ValueError, RecursionError):
        return _sympy_line(line)


def interpretation(lines: Sequence[Any], spec: Mapping[str, Any]) -> Interpretation:
    """The whole derivation as typed, one line per step (see the module docstring)."""
    forms = [line_forms(ln, spec) for ln in lines]
    spoken = [speak_mathml(f[2]) for f in forms]
    return Interpretation(text="\n".join(f[0] for f in forms),
                          latex=" \\\\ ".join(f[1] for f in forms),
                          mathml="".join(f"<mrow>{f[2]}</mrow>" for f in forms),
                          spoken={lang: "\n".join(s[lang] for s in spoken) for lang in LANGS})
