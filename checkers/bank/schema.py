"""Schema validation of question files (``docs/question-format.md``).

Every problem is reported as :class:`BankError` naming the file, the dotted field path (list items
as ``parts[2]``) and the problem, e.g. ``questions/L1/kl-coins.yaml: parts[0].mistakes[1].note:
must match [a-z0-9-]+``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator, Mapping

from .. import kinds
from .. import params as P
from ..languages import LANGS
from ..params import PLACEHOLDER
from ..verdict import SpecError

ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]{2,79}$")
REF_RE = re.compile(r"^Q([1-9]|1[0-9]|2[0-5])$")
PART_ID_RE = re.compile(r"^[a-z0-9_]{1,20}$")
NOTE_RE = re.compile(r"^[a-z0-9-]+$")
PARAM_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
LEVELS = ("L1", "L2", "L3")

TOP_KEYS = {"id", "ref", "level", "tags", "title", "prompt", "params", "parts", "solution", "source",
            "sources", "tries", "invariants"}
#: Tries a learner has before the solution is shown (``tries:``; the default when absent).
TRIES_DEFAULT = 3
TRIES_MAX = 10
#: At most this many hints per part (``hints:``, gentle first).
HINTS_MAX = 5
TOP_REQUIRED = ("id", "level", "tags", "title", "prompt", "parts", "solution")
SOLUTION_KEYS = {"key_points", "pitfalls", "worked"}

#: Keys every part may have, whatever its kind.
PART_COMMON = {"id", "kind", "prompt", "hint", "hints", "title", "placeholder", "weight", "mistakes", "sources"}
# Kind-specific keys are each kind's ``spec_keys`` (checkers/kinds/<name>/; docs/question-format.md).
#: Keys of one entry of a ``sources`` list: what is claimed and where it comes from.
SOURCE_KEYS = {"claim", "paper", "section", "file", "function", "repo"}
SOURCE_REPO_RE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
#: Keys of one entry of an ``invariants`` list: a comparison that must hold in every variant.
INVARIANT_KEYS = {"id", "claim", "left", "op", "right"}
INVARIANT_REQUIRED = ("id", "claim", "left", "op", "right")
#: The comparisons an invariant may make (``checkers.bank.invariants.OPS`` evaluates them).
INVARIANT_OPS = ("<", "<=", ">", ">=", "==", "!=")

MISTAKE_KEYS = {"note", "feedback", "call", "args", "output", "index", "scale", "expr", "value", "overrides",
                "answer", "line"}

#: Keys allowed next to each parameter generator.
PARAM_GENERATOR_KEYS: dict[str, set[str]] = {
    "uniform": {"round"},
    "randint": set(),
    "choice": set(),
    "list": {"length"},
    "simplex": {"round", "min"},
    "expr": set(),
    "call": {"args", "output", "index", "scale", "round"},
    "value": set(),
    "concat": set(),
}


class BankError(ValueError):
    """A question file that does not follow the format: names the file, the field and the problem."""

    def __init__(self, file: Any, field: str, problem: str, *, line: int | None = None,
                 column: int | None = None):
        self.file = str(file) if file is not None else "<question>"
        self.field = field or "(top level)"
        self.problem = problem
        # where in the file's text (1-based), when the YAML parser knows: an editor points at it
        self.line, self.column = line, column
        super().__init__(f"{self.file}: {self.field}: {problem}")


def _join(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


class _Ctx:
    def __init__(self, file: Any):
        self.file = file

    def fail(self, field: str, problem: str) -> None:
        raise BankError(self.file, field, problem)

    def mapping(self, value: Any, field: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            self.fail(field, f"must be a mapping, got {type(value).__name__}")
        return value

    def keys(self, value: Mapping[str, Any], allowed: set[str], field: str) -> None:
        unknown = [k for k in value if k not in allowed]
        if unknown:
            self.fail(_join(field, unknown[0]),
                      f"unknown key (allowed here: {', '.join(sorted(allowed))})")

    def text(self, value: Any, field: str) -> None:
        if not isinstance(value, str) or not value.strip():
            self.fail(field, "must be a non-empty string")

    def bilingual(self, value: Any, field: str, *, lists: bool = False) -> None:
        m = self.mapping(value, field)
        for lang in LANGS:
            if lang not in m:
                self.fail(_join(field, lang), f"missing ({'English' if lang == 'en' else 'Chinese'} text is required)")
        self.keys(m, set(LANGS), field)
        for lang in LANGS:
            if lists:
                items = m[lang]
                if not isinstance(items, list) or not items:
                    self.fail(_join(field, lang), "must be a non-empty list of strings")
                for i, item in enumerate(items):
                    self.text(item, _join(_join(field, lang), i))
            else:
                self.text(m[lang], _join(field, lang))
        if lists and len(m["en"]) != len(m["zh"]):
            self.fail(field, f"en has {len(m['en'])} items but zh has {len(m['zh'])}")


def _strings(obj: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(obj, str):
        yield path, obj
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _strings(v, _join(path, i))
    elif isinstance(obj, Mapping):
        for k, v in obj.items():
            yield from _strings(v, _join(path, k))


def _check_placeholders(ctx: _Ctx, obj: Any, path: str, known: set[str]) -> None:
    for where, text in _strings(obj, path):
        for m in PLACEHOLDER.finditer(text):
            if m.group(1) not in known:
                ctx.fail(where, f"placeholder {{{{{m.group(1)}}}}} names no parameter"
                                f" (parameters: {', '.join(sorted(known)) or 'none'})")
        if "{{" in text and not PLACEHOLDER.search(text):
            ctx.fail(where, "malformed placeholder: use {{name}} or {{name:.4f}}")


def _check_params(ctx: _Ctx, params: Any) -> list[str]:
    if params is None:
        return []
    params = ctx.mapping(params, "params")
    names: list[str] = []
    for name, spec in params.items():
        field = f"params.{name}"
        if not isinstance(name, str) or not PARAM_RE.match(name):
            ctx.fail(field, "parameter names are identifiers ([A-Za-z_][A-Za-z0-9_]*)")
        _check_generator(ctx, spec, field, set(names))
        names.append(name)
    return names


def _check_generator(ctx: _Ctx, spec: Any, field: str, earlier: set[str]) -> None:
    if isinstance(spec, bool):
        ctx.fail(field, "a parameter cannot be a boolean")
    if not isinstance(spec, Mapping):
        if isinstance(spec, (int, float, str, list)):
            return  # literal
        ctx.fail(field, f"not a parameter generator: {spec!r}")
    kinds = [k for k in PARAM_GENERATOR_KEYS if k in spec]
    if len(kinds) != 1:
        ctx.fail(field, f"needs exactly one of {', '.join(PARAM_GENERATOR_KEYS)} (found {kinds or 'none'})")
    kind = kinds[0]
    ctx.keys(spec, {kind} | PARAM_GENERATOR_KEYS[kind], field)
    if kind == "list":
        _check_generator(ctx, spec["list"], _join(field, "list"), earlier)
    if kind in ("expr", "call", "value", "concat"):
        _check_placeholders(ctx, spec, field, earlier)
        if kind == "call" and not isinstance(spec["call"], str):
            ctx.fail(_join(field, "call"), "must be an engine function name")


def _check_value_spec(ctx: _Ctx, spec: Any, field: str) -> None:
    """Light structural check of a value spec; the checker validates the rest."""
    if isinstance(spec, Mapping):
        forms = [k for k in ("value", "expr", "call") if k in spec]
        if len(forms) != 1:
            ctx.fail(field, "a value spec needs exactly one of value, expr, call")


def _check_constant(ctx: _Ctx, part: Mapping[str, Any], field: str) -> None:
    """``constant: true`` admits an expected value that is the same in every variant; it needs a reason.

    Without it the self-test fails such a part: a number that never changes gives the learner nothing
    to compute (it can be memorised), so it must be a deliberate choice the author explains.
    """
    if "constant" in part and not isinstance(part["constant"], bool):
        ctx.fail(_join(field, "constant"), "must be true or false")
    if part.get("constant") is True:
        if "constant_reason" not in part:
            ctx.fail(_join(field, "constant_reason"), "missing (constant: true needs a reason)")
        ctx.bilingual(part["constant_reason"], _join(field, "constant_reason"))
    elif "constant_reason" in part:
        ctx.fail(_join(field, "constant_reason"), "only allowed with constant: true")


def check_sources(ctx: _Ctx, sources: Any, field: str) -> None:
    """A ``sources`` list: each entry names a claim and either a paper (+ section) or a framework file.

    ``{claim, paper, section}`` for a paper; ``{claim, repo, file, function}`` for a framework's code
    (``repo`` is ``owner/name`` on GitHub, ``file`` the path in it, ``function`` the function or class).
    """
    if not isinstance(sources, list) or not sources:
        ctx.fail(field, "must be a non-empty list")
    for i, entry in enumerate(sources):
        ef = _join(field, i)
        entry = ctx.mapping(entry, ef)
        ctx.keys(entry, SOURCE_KEYS, ef)
        if "claim" not in entry:
            ctx.fail(_join(ef, "claim"), "missing (what the source supports)")
        ctx.text(entry["claim"], _join(ef, "claim"))
        is_paper, is_code = "paper" in entry, "file" in entry
        if is_paper == is_code:
            ctx.fail(ef, "needs exactly one of paper (with section) or file (with repo and function)")
        needed = ("paper", "section") if is_paper else ("repo", "file", "function")
        for key in needed:
            if key not in entry:
                ctx.fail(_join(ef, key), "missing")
            ctx.text(entry[key], _join(ef, key))
        extra = [k for k in ("repo", "file", "function") if is_paper and k in entry] + \
                [k for k in ("paper", "section") if is_code and k in entry]
        if extra:
            ctx.fail(_join(ef, extra[0]), "mixes a paper and a framework file in one entry")
        if is_code and not SOURCE_REPO_RE.match(entry["repo"]):
            ctx.fail(_join(ef, "repo"), f"bad repo {entry['repo']!r}: must be owner/name")


def check_invariants(ctx: _Ctx, invariants: Any, field: str, known: set[str]) -> None:
    """An ``invariants`` list: each entry ``{id, claim, left, op, right}`` states a comparison between two
    value specs (literal, ``{expr}``, ``{call}``; a bare string is an ``expr``) that the question's text
    relies on ("row 1 is not clipped", "Var[k3] < Var[k1]", a choice key). The self-test evaluates every
    one per variant (:mod:`checkers.bank.invariants`); here only the shape, the operator and the
    placeholders are checked.
    """
    if not isinstance(invariants, list) or not invariants:
        ctx.fail(field, "must be a non-empty list")
    ids: set[str] = set()
    for i, entry in enumerate(invariants):
        ef = _join(field, i)
        entry = ctx.mapping(entry, ef)
        ctx.keys(entry, INVARIANT_KEYS, ef)
        for key in INVARIANT_REQUIRED:
            if key not in entry:
                ctx.fail(_join(ef, key), "missing")
        if not isinstance(entry["id"], str) or not NOTE_RE.match(entry["id"]):
            ctx.fail(_join(ef, "id"), f"bad invariant id {entry['id']!r}: must match [a-z0-9-]+")
        if entry["id"] in ids:
            ctx.fail(_join(ef, "id"), f"duplicate invariant id {entry['id']!r}")
        ids.add(entry["id"])
        ctx.text(entry["claim"], _join(ef, "claim"))
        if entry["op"] not in INVARIANT_OPS:
            ctx.fail(_join(ef, "op"), f"bad operator {entry['op']!r}: one of {' '.join(INVARIANT_OPS)}")
        for side in ("left", "right"):
            spec = entry[side]
            if isinstance(spec, bool) or not isinstance(spec, (int, float, str, list, Mapping)):
                ctx.fail(_join(ef, side), "must be a value spec (number, list, expr string, {value|expr|call})")
            _check_value_spec(ctx, spec, _join(ef, side))
            _check_placeholders(ctx, spec, _join(ef, side), known)


def _check_part(ctx: _Ctx, part: Any, field: str) -> None:
    part = ctx.mapping(part, field)
    for key in ("id", "kind", "prompt"):
        if key not in part:
            ctx.fail(_join(field, key), "missing")
    if not isinstance(part["id"], str) or not PART_ID_RE.match(part["id"]):
        ctx.fail(_join(field, "id"), f"bad part id {part['id']!r}: must match [a-z0-9_]{{1,20}}")
    kind = part["kind"]
    try:
        checker = get_kind(kind)
    except SpecError as exc:
        ctx.fail(_join(field, "kind"), str(exc))
    if checker.spec_keys is not None:  # None: the kind checks its own keys in validate_spec
        ctx.keys(part, PART_COMMON | checker.spec_keys, field)
    ctx.bilingual(part["prompt"], _join(field, "prompt"))
    if "hint" in part:
        ctx.bilingual(part["hint"], _join(field, "hint"))
    _check_input_help(ctx, part, field)
    if "weight" in part:
        w = part["weight"]
        if isinstance(w, bool) or not isinstance(w, (int, float)) or w < 0:
            ctx.fail(_join(field, "weight"), "must be a number >= 0")
    for key in checker.value_keys:  # values given as a literal, a {{param}} or an engine call
        if key not in part:
            ctx.fail(_join(field, key), "missing")
        _check_value_spec(ctx, part[key], _join(field, key))
    if checker.spec_keys is not None and "constant" in checker.spec_keys:
        _check_constant(ctx, part, field)
    if "sources" in part:
        check_sources(ctx, part["sources"], _join(field, "sources"))
    mistakes = part.get("mistakes", [])
    if not isinstance(mistakes, list):
        ctx.fail(_join(field, "mistakes"), "must be a list")
    notes: set[str] = set()
    for j, mistake in enumerate(mistakes):
        mf = _join(_join(field, "mistakes"), j)
        mistake = ctx.mapping(mistake, mf)
        ctx.keys(mistake, MISTAKE_KEYS, mf)
        if "note" not in mistake:
            ctx.fail(_join(mf, "note"), "missing")
        note = mistake["note"]
        if not isinstance(note, str) or not NOTE_RE.match(note):
            ctx.fail(_join(mf, "note"), f"bad note {note!r}: must match [a-z0-9-]+")
        notes.add(note)  # several wrong answers may share one note (the same misconception)
        if "feedback" not in mistake:
            ctx.fail(_join(mf, "feedback"), "missing")
        ctx.bilingual(mistake["feedback"], _join(mf, "feedback"))
    checker.warm()
    try:
        checker.validate_spec(part)
    except SpecError as exc:
        if getattr(exc, "field", None):
            ctx.fail(_join(field, exc.field), str(exc))
        ctx.fail(field, f"{kind} part: {exc}")
    except (KeyError, TypeError, ValueError) as exc:  # a checker that trips over malformed data
        ctx.fail(field, f"{kind} part is malformed: {type(exc).__name__}: {exc}")


def _check_input_help(ctx: _Ctx, part: Mapping[str, Any], field: str) -> None:
    """``hints`` (bilingual texts, gentle first), ``title`` (bilingual) and ``placeholder`` (one string:
    an input example is maths, the same in both languages)."""
    if "hints" in part:
        hints = part["hints"]
        if not isinstance(hints, list) or not hints:
            ctx.fail(_join(field, "hints"), "must be a non-empty list of {en, zh} texts")
        if len(hints) + (1 if "hint" in part else 0) > HINTS_MAX:
            ctx.fail(_join(field, "hints"), f"at most {HINTS_MAX} hints per part (counting hint)")
        for j, hint in enumerate(hints):
            ctx.bilingual(hint, _join(_join(field, "hints"), j))
    if "title" in part:
        ctx.bilingual(part["title"], _join(field, "title"))
    if "placeholder" in part:
        value = part["placeholder"]
        if not isinstance(value, str) or not value.strip() or len(value) > 80:
            ctx.fail(_join(field, "placeholder"), "must be a non-empty string of at most 80 characters")


def validate_question(data: Any, file: Any = None) -> None:
    """Raise :class:`BankError` unless ``data`` is a well-formed question (see the format doc)."""
    ctx = _Ctx(file)
    data = ctx.mapping(data, "")
    ctx.keys(data, TOP_KEYS, "")
    for key in TOP_REQUIRED:
        if key not in data:
            ctx.fail(key, "missing")
    qid = data["id"]
    if not isinstance(qid, str) or not ID_RE.match(qid):
        ctx.fail("id", f"bad id {qid!r}: a slug of 3-80 characters [a-z0-9-]")
    if "ref" in data:
        if not isinstance(data["ref"], str) or not REF_RE.match(data["ref"]):
            ctx.fail("ref", f"bad ref {data['ref']!r}: must be Q1..Q25")
    level = data["level"]
    if level not in LEVELS:
        ctx.fail("level", f"bad level {level!r}: must be one of {', '.join(LEVELS)}")
    if file is not None:
        folder = Path(str(file)).parent.name
        if folder in LEVELS and folder != level:
            ctx.fail("level", f"level {level} does not match the folder {folder}/")
    tags = data["tags"]
    if not isinstance(tags, list) or not tags or not all(isinstance(t, str) and t for t in tags):
        ctx.fail("tags", "must be a non-empty list of strings")
    if len(set(tags)) != len(tags):
        ctx.fail("tags", "duplicate tag")
    ctx.bilingual(data["title"], "title")
    ctx.bilingual(data["prompt"], "prompt")
    if "source" in data:
        ctx.text(data["source"], "source")
    if "sources" in data:
        check_sources(ctx, data["sources"], "sources")
    if "tries" in data:
        tries = data["tries"]
        if isinstance(tries, bool) or not isinstance(tries, int) or not 1 <= tries <= TRIES_MAX:
            ctx.fail("tries", f"must be a whole number from 1 to {TRIES_MAX} (tries before the solution)")

    names = _check_params(ctx, data.get("params"))
    known = set(names)
    if "invariants" in data:
        check_invariants(ctx, data["invariants"], "invariants", known)

    parts = data["parts"]
    if not isinstance(parts, list) or not parts:
        ctx.fail("parts", "must be a non-empty list")
    ids: set[str] = set()
    for i, part in enumerate(parts):
        field = f"parts[{i}]"
        _check_part(ctx, part, field)
        if part["id"] in ids:
            ctx.fail(_join(field, "id"), f"duplicate part id {part['id']!r}")
        ids.add(part["id"])
    if not any(get_kind(p["kind"]).machine_graded and p.get("weight", 1) > 0 for p in parts):
        ctx.fail("parts", "needs at least one machine-graded part (not freetext, weight > 0)")

    solution = ctx.mapping(data["solution"], "solution")
    ctx.keys(solution, SOLUTION_KEYS, "solution")
    for key in sorted(SOLUTION_KEYS):
        if key not in solution:
            ctx.fail(f"solution.{key}", "missing")
    ctx.bilingual(solution["key_points"], "solution.key_points", lists=True)
    ctx.bilingual(solution["pitfalls"], "solution.pitfalls", lists=True)
    ctx.bilingual(solution["worked"], "solution.worked")

    for key in ("title", "prompt", "parts", "solution"):
        _check_placeholders(ctx, data[key], key, known)

    # The generator must run: a variant is drawn at validation time (seed 0), parameter by parameter so
    # that a failure names the parameter.
    check_generator_runs(ctx, data.get("params"))


def check_generator_runs(ctx: "_Ctx", params_spec: Any, seed: int = 0) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, spec in (params_spec or {}).items():
        field = f"params.{name}"
        try:
            values[name] = P._generate_one(spec, P._rng_for(seed, name), values, field)
        except SpecError as exc:
            msg = str(exc)
            m = re.match(r"^(params\.[A-Za-z0-9_]+(?:\[\d+\])*): (.*)$", msg, re.S)
            ctx.fail(m.group(1) if m else field, m.group(2) if m else msg)
        except Exception as exc:  # engine or parser failure while drawing a variant
            ctx.fail(field, f"cannot generate (seed {seed}): {type(exc).__name__}: {exc}")
    return values


def get_kind(kind: str):
    """The answer kind registered as ``kind`` (importing :mod:`checkers.kinds` registers every kind)."""
    return kinds.get_kind(kind)
