"""Questions, attempts and the stand-alone symbolic/derivation checks."""

from __future__ import annotations

import re
import secrets
from typing import Any

from ..storage.db import get_session
from ..errors import NotFound, ValidationError
from ..learners import current_learner_id, learner_is_new
from ..services import attempts as attempt_service
from ..services import questions as question_service
from ..services import question_cache
from ..httpkit.jsonio import json_safe
from ..services.answers import check_answer, localize, norm_lang, shape_error
from checkers.limits import MAX_TEXT as MAX_EXPR  # an expression sent for checking is one text answer
from checkers.mathparse.symbols import ASSUMPTION_FLAGS  # the flags the parser understands, from their one home

from . import bp
from ..httpkit.jsonapi import check_unknown, field, json_body, ok, query_int, request_lang

from flask import current_app, request
from checkers import grading
from checkers.bank import VARIANT_MAX, public_view
from checkers.kinds import get_kind
from checkers.kinds.derivation.standalone import accept_steps, check_derivation as grade_derivation
from checkers.kinds.symbolic.standalone import check_symbolic as grade_symbolic
from checkers.verdict import AnswerParseError, AnswerShapeError, SpecError
from ..ops.admission import let_go

MODES = ("equivalent", "same_form", "up_to_constant", "up_to_sign")
DOMAINS = ("probability",)  # the API offers the one named domain; flags cover the others
NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,31}$")


def _summary(row: dict, lang: str) -> dict[str, Any]:
    data = row["data"]
    title = row["title"]
    return {
        "id": row["id"],
        "ref": row["ref"],
        "level": row["level"],
        "title": title.get(lang) or title.get("en"),
        "tags": row["tags"],
        "parts": [{"id": p["id"], "kind": p["kind"]} for p in data["parts"]],
        "version": row["version"],
    }


@bp.get("/questions")
def list_questions():
    lang = request_lang()
    level = request.args.get("level") or None
    if level is not None and level not in question_service.LEVELS:
        raise ValidationError(f"level must be one of {', '.join(question_service.LEVELS)}", "level")
    tag = request.args.get("tag") or None

    session = get_session()

    def encode(_rows: list[dict]) -> bytes:
        rows = question_service.list_questions(session, level=level, tag=tag)
        return current_app.json.response({"questions": [_summary(r, lang) for r in rows]}).get_data()

    # The encoded list is kept per published set, language and filter: a listing then costs one query.
    body = question_cache.derived(session, ("api/v1/questions", lang, level, tag), encode)
    return current_app.response_class(body, mimetype=current_app.json.mimetype)


def _question(qid: str) -> dict:
    return question_service.get_question(get_session(), qid)


@bp.get("/questions/<qid>")
def get_question(qid: str):
    lang = request_lang()
    row = _question(qid)
    variant = query_int("variant")
    if variant is None:
        variant = secrets.randbelow(VARIANT_MAX)
    attempt_service.check_variant(variant)
    view = json_safe(public_view(row["data"], variant, lang))
    view["variant"] = variant
    view["version"] = row["version"]
    view["lang"] = lang
    return ok(view)


def _part(row: dict, body: dict) -> dict:
    pid = field(body, "part", str)
    for part in row["data"]["parts"]:
        if part["id"] == pid:
            return part
    raise ValidationError(f"no part {pid!r} in question {row['id']!r}", "part", code="unknown_part")


@bp.post("/questions/<qid>/validate")
def validate_answer(qid: str):
    row = _question(qid)
    body = json_body()
    check_unknown(body, {"variant", "part", "answer", "lang"})
    lang = request_lang(body)
    if "variant" in body:
        attempt_service.check_variant(body["variant"])
    part = _part(row, body)
    if body.get("answer") is None:
        raise ValidationError("answer is required", "answer", code="missing_field")
    answer = check_answer(get_kind(part["kind"]), body["answer"], "answer")
    result = grading.validate(answer, part)
    result = json_safe(result)
    error = result.get("error")
    if error:
        message = error.get("message_zh") if lang == "zh" and error.get("message_zh") else error.get("message")
        error = {"message": message, "column": error.get("column"), "field": error.get("field")}
    warning = result.get("warning")
    if warning:
        warning = warning.get("zh") if lang == "zh" else warning.get("en")
    return ok({"valid": bool(result.get("valid")), "interpreted_as": result.get("interpreted_as"),
               "error": error, "warning": warning or None})


@bp.post("/questions/<qid>/attempts")
def submit_attempt(qid: str):
    session = get_session()
    question = question_service.get_question(session, qid)  # 404 before looking at the body
    body = json_body()
    check_unknown(body, {"variant", "answers", "lang"})
    lang = request_lang(body)
    variant = body.get("variant")
    if variant is None:
        raise ValidationError("variant is required (the variant you were shown)", "variant", code="missing_field")
    answers = field(body, "answers", dict)
    # The review card is rated before the attempt is stored and written in its transaction: one durable
    # commit per attempt. A learner made up for this request (no cookie yet) has no history and no card.
    new = learner_is_new()
    prepared = attempt_service.prepare_attempt(session, qid, variant, answers, current_learner_id(), lang,
                                               question=question, rate_review=True, new_learner=new)
    let_go()  # graded and answered: the grading slot goes back while the attempt waits to be stored
    result = attempt_service.store_attempt(session, prepared)
    resp = ok(result, 201)
    resp.headers["Location"] = f"/api/v1/attempts/{result['attempt_id']}"
    return resp


@bp.get("/attempts/<attempt_id>")
def get_attempt(attempt_id: str):
    lang = request_lang()
    body = attempt_service.get_attempt(get_session(), attempt_id, lang)
    if body["learner_id"] != current_learner_id():  # only its owner reads an attempt (else a shared link)
        raise NotFound(f"no attempt {attempt_id!r}", "attempt_id", code="unknown_attempt")
    return ok(body)


# --- the stand-alone verification service ---------------------------------------------------------

def _expr(body: dict, name: str) -> str:
    value = field(body, name, str)
    if len(value) > MAX_EXPR:
        raise ValidationError(f"{name} is longer than {MAX_EXPR} characters", name)
    return value


def _variables(body: dict) -> dict[str, dict]:
    raw = field(body, "variables", dict, required=False, default={})
    if len(raw) > 50:
        raise ValidationError("at most 50 variables", "variables")
    out: dict[str, dict] = {}
    for name, spec in raw.items():
        path = f"variables.{name}"
        if not NAME.match(name):
            raise ValidationError(f"{name!r} is not a variable name", path)
        if not isinstance(spec, dict):  # null too: the document's Assumptions is an object ({} for none)
            raise ValidationError("assumptions must be an object such as {\"positive\": true}", path)
        for key, value in spec.items():
            if key == "domain":
                if value not in DOMAINS:
                    raise ValidationError(f"domain must be one of {', '.join(DOMAINS)}", f"{path}.domain")
            elif key in ASSUMPTION_FLAGS:
                if not isinstance(value, bool):
                    raise ValidationError(f"{key} must be true or false", f"{path}.{key}")
            else:
                raise ValidationError(
                    f"unknown assumption {key!r} (allowed: {', '.join(ASSUMPTION_FLAGS + ('domain',))})",
                    f"{path}.{key}")
        out[name] = dict(spec)
    return out


def _functions(body: dict) -> dict[str, dict] | None:
    raw = field(body, "functions", dict, required=False)
    if raw is None:
        return None
    out = {}
    for name, spec in raw.items():
        path = f"functions.{name}"
        if not NAME.match(name):
            raise ValidationError(f"{name!r} is not a function name", path)
        if not isinstance(spec, dict) or set(spec) - {"args", "expr"}:
            raise ValidationError("a function is {\"args\": [names], \"expr\": \"...\"}", path)
        args = spec.get("args")
        if not isinstance(args, list) or not args or not all(isinstance(a, str) and NAME.match(a) for a in args):
            raise ValidationError("args must be a non-empty list of names", f"{path}.args")
        expr = spec.get("expr")
        if not isinstance(expr, str) or len(expr) > MAX_EXPR:
            raise ValidationError("expr must be a string", f"{path}.expr")
        out[name] = {"args": list(args), "expr": expr}
    return out


def _verdict_body(verdict: Any, lang: str) -> dict[str, Any]:
    v = json_safe(verdict)
    body = {
        "status": v.get("status"),
        "score": v.get("score"),
        "feedback": localize(v.get("feedback"), lang),
        "note": v.get("note"),
        "interpreted_as": v.get("interpreted_as"),
        "details": localize(v.get("details") or {}, lang),
    }
    return body


def _checker_input_error(exc: Exception, default_field: str):
    if isinstance(exc, AnswerParseError):
        return ValidationError(exc.message, exc.field or default_field, code="unparseable",
                               extra={"column": exc.column})
    return ValidationError(str(exc), default_field)


@bp.post("/check/symbolic")
def check_symbolic():
    body = json_body()
    check_unknown(body, {"expected", "answer", "variables", "mode", "constants", "decimals", "lang"})
    lang = request_lang(body)
    expected = _expr(body, "expected")
    answer = _expr(body, "answer")
    variables = _variables(body)
    mode = field(body, "mode", str, required=False, default="equivalent")
    if mode not in MODES:
        raise ValidationError(f"mode must be one of {', '.join(MODES)}", "mode")
    constants = field(body, "constants", list, required=False, default=[])
    for i, name in enumerate(constants):
        if not isinstance(name, str) or name not in variables:
            raise ValidationError("each constant must name a declared variable", f"constants[{i}]")
    decimals = field(body, "decimals", dict, required=False, default=None)
    if decimals is not None:
        for key, value in decimals.items():
            if key not in ("rtol", "atol"):
                raise ValidationError(f"unknown key {key!r} (allowed: rtol, atol)", f"decimals.{key}")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
                raise ValidationError("must be a finite number >= 0", f"decimals.{key}")
        if not decimals:
            raise ValidationError("give rtol and/or atol", "decimals")
    try:
        verdict = grade_symbolic(expected, answer, variables, mode=mode, constants=constants, decimals=decimals)
    except (AnswerParseError, SpecError) as exc:
        raise _checker_input_error(exc, "expected") from None
    return ok(_verdict_body(verdict, lang))


@bp.post("/check/derivation")
def check_derivation():
    body = json_body()
    check_unknown(body, {"steps", "start", "goal", "variables", "functions", "milestones", "lang"})
    lang = request_lang(body)
    try:
        steps = accept_steps(body.get("steps") if body.get("steps") is not None else _missing("steps"), "steps")
    except AnswerShapeError as exc:
        raise shape_error(exc) from None
    start = _expr(body, "start")
    goal = _expr(body, "goal")
    variables = _variables(body)
    functions = _functions(body)
    milestones = _milestones(body)
    try:
        verdict = grade_derivation(steps, start, goal, variables, functions=functions, milestones=milestones)
    except (AnswerParseError, SpecError) as exc:
        m = re.match(r"^key_steps\[(\d+)\](?:\.expr)?: (.*)$", str(exc), re.S)
        if isinstance(exc, SpecError) and m:  # a milestone that cannot be read, or is already the start/goal
            raise ValidationError(m.group(2), f"milestones[{m.group(1)}]") from None
        raise _checker_input_error(exc, "start") from None
    out = _verdict_body(verdict, lang)
    details = out["details"]
    out["steps"] = details.get("steps", [])
    out["first_error"] = details.get("first_error")
    out["missing_milestones"] = details.get("missing_milestones", [])
    return ok(out)


MAX_MILESTONES = 20


def _milestones(body: dict) -> list[str]:
    """Optional key steps of a stand-alone derivation: expressions that must appear in order."""
    raw = field(body, "milestones", list, required=False, default=[])
    if len(raw) > MAX_MILESTONES:
        raise ValidationError(f"at most {MAX_MILESTONES} milestones", "milestones")
    for i, m in enumerate(raw):
        if not isinstance(m, str) or not m.strip():
            raise ValidationError("each milestone must be a non-empty maths expression", f"milestones[{i}]")
        if len(m) > MAX_EXPR:
            raise ValidationError(f"longer than {MAX_EXPR} characters", f"milestones[{i}]")
    return list(raw)


def _missing(name: str):
    raise ValidationError(f"{name} is required", name, code="missing_field")


__all__ = ["NotFound", "norm_lang"]
