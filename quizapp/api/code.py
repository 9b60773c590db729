"""Code answers over the API: the stand-alone check of an implementation, and a part's practice check.

* ``POST /api/v1/check/code`` ``{"function", "source", "convention"?, "outputs"?, "args"?, "name"?}``: the
  learner's Python source is run in a sealed child (:mod:`checkers.coderun`) on the ``code`` kind's hidden
  cases for the engine function and compared with the engine (:mod:`checkers.kinds.code.standalone` picks
  the inputs for any registered function); the function it must define is named like the function's last
  component (``k3`` for ``kl.k3``) unless ``name`` says otherwise, and receives the function's tensor
  inputs and required scalars. ``args`` fixes hyperparameters (``{"beta": 0.1, "loss_type": "ipo"}``),
  validated like the engine's own arguments. The graded outputs default to the function's first output.
* ``POST /api/v1/questions/<id>/check`` ``{"variant"?, "part", "answer"}``: the part's kind runs its
  practice check (for ``code``: the visible cases only); it costs no attempt and is stored nowhere.
"""

from __future__ import annotations

from typing import Any

from checkers.bank import params_for
from checkers.kinds.base import get_kind
from checkers.kinds.code import learner_name, starter_source
from checkers.verdict import AnswerShapeError

from .. import grading_backends
from ..errors import PayloadTooLarge, ValidationError
from . import bp
from ..httpkit.jsonapi import check_unknown, field, json_body, ok, request_lang
from .questions import _part, _question, _verdict_body
from ..services import attempts as attempt_service


def _accept(kind: Any, value: Any, name: str) -> Any:
    """The kind's shape check of an answer, its refusal as the API's error envelope naming ``name``."""
    try:
        return kind.accept(value, name)
    except AnswerShapeError as exc:
        error = PayloadTooLarge if exc.status == 413 else ValidationError
        raise error(f"{exc.field or name} {exc.message}", exc.field or name) from None


def code_spec(body: dict) -> dict[str, Any]:
    """The ``code`` part a stand-alone check grades against, from the request's fields (422 naming the
    field for an unknown function, output, convention or name, or an ``args`` value the engine refuses)."""
    # The registry and the case builder load torch: imported on the first code check, not at app start-up.
    from checkers.kinds.code.standalone import StandaloneError, standalone_spec  # local: imports torch
    from checkers.reference import names  # local: the engine imports torch

    function = field(body, "function", str)
    if function not in names():
        raise ValidationError(f"unknown engine function {function!r} (GET /api/v1/reference lists them)",
                              "function", code="unknown_function")
    args = field(body, "args", dict, required=False, default={})
    outputs = field(body, "outputs", list, required=False)
    if outputs is not None and not all(isinstance(o, str) for o in outputs):
        raise ValidationError("outputs must be a list of output names", "outputs")
    try:
        return standalone_spec(function, args=args, convention=field(body, "convention", str, required=False),
                               outputs=outputs, name=field(body, "name", str, required=False))
    except StandaloneError as exc:
        raise ValidationError(exc.message, exc.field, code=exc.code) from None


@bp.post("/check/code")
def check_code():
    body = json_body()
    check_unknown(body, {"function", "source", "convention", "outputs", "lang", "args", "name"})
    lang = request_lang(body)
    spec = code_spec(body)
    kind = get_kind(spec["kind"])  # the kind the stand-alone spec is a part of, looked up once per request
    source = _accept(kind, field(body, "source", str), "source")
    try:
        verdict = grading_backends.grade(source, spec, {}, kind=kind)  # nothing below looks it up again
    except (RuntimeError, ValueError, TypeError, IndexError) as exc:
        # The engine could not compute a generated case (the spec was probed, so this is not expected):
        # refused rather than graded on a partial case set.
        raise ValidationError(f"{spec['function']} cannot be checked stand-alone ({type(exc).__name__})",
                              "function", code="unsupported_function") from None
    out = _verdict_body(verdict, lang)
    out["function"] = spec["function"]
    out["name"] = learner_name(spec)
    out["args"] = spec["args"]
    out["outputs"] = spec["outputs"]
    out["fixed"] = {**spec["fixed"], **spec["scalars"]}   # the hyperparameters held for every case
    out["starter"] = _starter(spec, lang)
    return ok(out)


def _starter(spec: dict[str, Any], lang: str) -> str:
    """The signature the check calls, as a starter: the arguments with their shapes, the outputs."""
    from checkers.reference import describe  # local: the engine imports torch

    summary = describe(spec["function"])["doc"].strip().split("\n", 1)[0]
    return starter_source({**spec, "summary": {"en": summary}}, lang)


@bp.post("/questions/<qid>/check")
def check_part(qid: str):
    row = _question(qid)
    body = json_body()
    check_unknown(body, {"variant", "part", "answer", "lang"})
    lang = request_lang(body)
    variant = attempt_service.check_variant(body["variant"]) if body.get("variant") is not None else 0
    part = _part(row, body)
    kind = get_kind(part["kind"])  # looked up once per request, handed to the backend below
    if body.get("answer") is None:
        raise ValidationError("answer is required", "answer", code="missing_field")
    answer = _accept(kind, body["answer"], "answer")
    params = params_for(row["data"], variant)
    verdict = grading_backends.check(answer, part, params, kind=kind)
    if verdict is None:
        raise ValidationError(f"part {part['id']!r} ({part['kind']}) has no practice check; submit an attempt",
                              "part", code="no_check")
    out = _verdict_body(verdict, lang)
    out["part"] = part["id"]
    out["variant"] = variant
    return ok(out)
