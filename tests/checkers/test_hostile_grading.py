"""Hostile input through the grading facade (checkers.grading), in the real sandbox pool.

Every case must come back as a verdict (never an exception) whose status is ``invalid`` (or
``undecided`` when the sandbox's hard limit, chosen here, ended it), and must leave no side effect: a
sentinel file that the injected code would create must not appear.

No clock is read. What keeps each case cheap is checked as *work*: the calls the calling thread makes
on one answer (``checkers.budget.count_calls``) stay under a fixed bound, so an answer that is not
refused before the work it would cause fails here on a quiet and on a loaded machine alike. Work done
inside a sandbox worker is bounded by the limit the test passes (``LIMIT_S``): past it the worker is
killed and the verdict is ``undecided``/``timeout``. Latency figures: ``benchmarks/bench_hostile.py``.
"""

from __future__ import annotations

import json

import pytest

from checkers import grading, sandbox
from checkers.kinds.symbolic.standalone import check_symbolic
from checkers.kinds.derivation.standalone import check_derivation
from checkers.budget import count_calls
from checkers.kinds import array as array_kind

#: The hard limit (seconds) the test gives the sandbox for each symbolic / derivation answer.
LIMIT_S = 1.0
OK = ("invalid", "undecided")
#: Calls the calling thread may make on one text answer. An ordinary answer costs a few thousand (the
#: parser's token limit bounds the rest); a bomb built out, or parsed past the limits, costs far more.
MAX_CALLS = 50_000
#: An array is read node by node up to its element limit (a handful of calls a node), then refused.
MAX_ARRAY_CALLS = 16 * 2 * array_kind.MAX_ELEMENTS
V = {"x": {}, "y": {}, "p": {"domain": "probability"}}

#: ``{s}`` is replaced by the sentinel path of the test.
HOSTILE: list[tuple[str, str]] = [
    # Python injection and introspection
    ("import-system", "__import__('os').system('touch {s}')"),
    ("import-system-dq", '__import__("os").system("touch {s}")'),
    ("class-bases", "().__class__.__bases__"),
    ("subclasses", "().__class__.__bases__[0].__subclasses__()"),
    ("lambda", "lambda: 1"),
    ("lambda-call", "(lambda: __import__('os').system('touch {s}'))()"),
    ("exec", "exec(\"open('{s}', 'w')\")"),
    ("eval", "eval('1')"),
    ("open", "open('{s}', 'w').write('x')"),
    ("dict-attr", "x.__dict__"),
    ("class-attr", "x.__class__"),
    ("getattr", "getattr(x, '__dict__')"),
    ("globals", "globals()['__builtins__']"),
    ("import-stmt", "import os"),
    ("statement-chain", "x; __import__('os').system('touch {s}')"),
    ("comprehension", "[c for c in ().__class__.__base__.__subclasses__()]"),
    ("newline-code", "x\n__import__('os').system('touch {s}')"),
    ("string-literal", "'{s}'"),
    ("walrus", "(y := 1)"),
    ("comparison", "x < y"),
    # format strings
    ("format-class", "{0.__class__}"),
    ("format-globals", "{x.__init__.__globals__}"),
    ("percent-format", "%s%s%s%n"),
    ("fstring", "f'{__import__(\"os\").system(\"touch {s}\")}'"),
    # number and power bombs
    ("pow-tower-py", "9**9**9**9"),
    ("pow-tower", "9^9^9^9"),
    ("pow-2-10-10", "2^(10^10)"),
    ("pow-10-10-10", "10^10^10"),
    ("factorial-call", "factorial(10^8)"),
    ("factorial-bang", "(10^8)!"),
    ("exp-tower", "exp(exp(exp(1000)))"),
    ("exp-huge", "exp(10^10)"),
    ("expand-bomb", "x^(10^6)"),
    ("binomial-bomb", "(x+1)^999999"),
    ("binomial-bomb-2", "(x+1)^(10^6) - (x+1)^(10^6) + x + 1"),
    ("pow-pow", "x^1000^1000"),
    ("long-integer", "1" * 5000),
    ("long-decimal", "0." + "1" * 10_000),
    ("huge-sci", "1e999999"),
    ("division-by-zero", "1/0"),
    ("log-zero", "log(0)"),
    ("sqrt-negative", "sqrt(-1)"),
    # size and nesting
    ("100kB-identifier", "x" * 100_000),
    ("100kB-sum", "x+" * 50_000 + "x"),
    ("100kB-spaces", "x" + " " * 100_000),
    ("10000-parens", "(" * 10_000 + "x" + ")" * 10_000),
    ("10000-open-parens", "(" * 10_000),
    ("nested-exp", "exp(" * 500 + "x" + ")" * 500),
    ("nested-sigmoid", "sigmoid(" * 200 + "x" + ")" * 200),
    ("nested-abs", "|" * 2000 + "x" + "|" * 2000),
    ("many-max-args", "max(" + ", ".join(["x"] * 10_000) + ")"),
    ("nested-frac", "\\frac{1}{" * 1000 + "x" + "}" * 1000),
    ("left-bombs", "\\left(" * 5000 + "x"),
    # invisible and control characters
    ("null", "\x00"),
    ("null-inside", "x\x00+1"),
    ("bidi-rlo", "x\u202e+1"),
    ("bidi-isolate", "x\u2066+1\u2069"),
    ("zero-width-space", "x\u200b+1"),
    ("zero-width-joiner", "x\u200d+1"),
    ("bom", "\ufeffx+1"),
    ("combining-marks", "x" + "\u0301" * 1000),
    ("escape-sequence", "x\x1b[2J+1"),
    # LaTeX that a TeX engine would act on
    ("tex-input", "\\input{/etc/passwd}"),
    ("tex-include", "\\include{/etc/passwd}"),
    ("tex-def", "\\def\\x{1}\\x"),
    ("tex-newcommand", "\\newcommand{\\f}{x}\\f"),
    ("tex-renewcommand", "\\renewcommand{\\frac}{x}\\frac{1}{2}"),
    ("tex-csname", "\\csname x\\endcsname"),
    ("tex-write18", "\\write18{touch {s}}"),
    ("tex-immediate", "\\immediate\\write18{touch {s}}"),
    ("tex-catcode", "\\catcode`\\^=12 x^2"),
    ("tex-unknown", "\\unknownmacro{x}"),
]

NON_TEXT: list[tuple[str, object]] = [
    ("none", None),
    ("int", 12345),
    ("huge-int", 10 ** 5000),
    ("float-nan", float("nan")),
    ("bytes", b"x + 1"),
    ("dict", {"__class__": "x"}),
    ("nested-dict", {"a": {"b": {"c": [1, 2]}}}),
    ("set", {"a", "c"}),
    ("object", object()),
    ("function", lambda: 1),
    ("exception", ValueError("x")),
]


def _text(template: str, sentinel) -> str:
    return template.replace("{s}", str(sentinel))


@pytest.fixture(scope="module")
def pool():
    """The real, killable pool, started and warmed before the first case."""
    before = sandbox.is_inprocess()
    sandbox.set_inprocess(False)
    sandbox.get_pool().start()
    for _ in range(sandbox.get_pool().size):
        check_symbolic("x + 1", "1 + x", V)
    yield
    sandbox.set_inprocess(before)


def _graded(call, sentinel, max_calls=MAX_CALLS):
    v, calls = count_calls(call)
    assert not sentinel.exists(), "the answer had a side effect"
    assert calls <= max_calls, f"{calls} calls in the calling thread"
    assert v.status in OK, (v.status, v.note, v.feedback["en"])
    assert not v.consumes_attempt
    assert v.feedback["en"] and v.feedback["zh"]
    return v


def test_the_suite_is_big_enough():
    assert len(HOSTILE) + len(NON_TEXT) >= 60
    assert len({name for name, _ in HOSTILE + NON_TEXT}) == len(HOSTILE) + len(NON_TEXT)


@pytest.mark.parametrize("name,template", HOSTILE, ids=[n for n, _ in HOSTILE])
def test_check_symbolic(pool, tmp_path, name, template):
    s = tmp_path / "sentinel"
    _graded(lambda: check_symbolic("x + 1", _text(template, s), V, timeout=LIMIT_S), s)


@pytest.mark.parametrize("name,template", HOSTILE, ids=[n for n, _ in HOSTILE])
def test_check_derivation(pool, tmp_path, name, template):
    s = tmp_path / "sentinel"
    text = _text(template, s)
    _graded(lambda: check_derivation([text], "x + 1", "1 + x", V, timeout=LIMIT_S), s)
    # a hostile step in the middle of an otherwise sound chain, and as a continuation
    _graded(lambda: check_derivation(["x + 1", text, "1 + x"], "x + 1", "1 + x", V, timeout=LIMIT_S), s)
    _graded(lambda: check_derivation(["x + 1", "= " + text], "x + 1", "1 + x", V, timeout=LIMIT_S), s)


SPECS = {
    "symbolic": {"kind": "symbolic", "expected": "x + 1", "variables": V},
    "derivation": {"kind": "derivation", "start": "x + 1", "goal": "1 + x", "variables": V},
    "numeric": {"kind": "numeric", "expected": {"value": 0.5}},
    "array": {"kind": "array", "expected": {"value": [[1.0, 2.0], [3.0, 4.0]]}},
    "choice": {"kind": "choice", "options": [{"id": i, "text": {"en": i, "zh": i}} for i in "abcd"],
               "correct": ["a", "c"], "multiple": True},
}


@pytest.mark.parametrize("kind", sorted(SPECS))
@pytest.mark.parametrize("name,template", HOSTILE, ids=[n for n, _ in HOSTILE])
def test_grade_text_for_every_kind(pool, tmp_path, kind, name, template):
    s = tmp_path / "sentinel"
    _graded(lambda: grading.grade(_text(template, s), SPECS[kind], {}, timeout=LIMIT_S), s)


#: A plain number is a legitimate numeric answer, so those pairs are not hostile.
_OBJECT_CASES = [(kind, name, raw) for kind in sorted(SPECS) for name, raw in NON_TEXT
                 if not (kind == "numeric" and name in ("int", "float-nan"))]


@pytest.mark.parametrize("kind,name,raw", _OBJECT_CASES, ids=[f"{k}-{n}" for k, n, _ in _OBJECT_CASES])
def test_grade_objects_for_every_kind(pool, tmp_path, kind, name, raw):
    _graded(lambda: grading.grade(raw, SPECS[kind], {}, timeout=LIMIT_S), tmp_path / "sentinel")


@pytest.fixture(scope="module")
def warm_parser():
    """Pay the parser's one-time sympy costs (``mathparse.warm_up``) before any answer's work is counted."""
    for spec in SPECS.values():
        grading.validate("x + 1", spec)


@pytest.mark.parametrize("name,template", HOSTILE, ids=[n for n, _ in HOSTILE])
def test_validate_never_raises(warm_parser, tmp_path, name, template):
    s = tmp_path / "sentinel"
    for kind, spec in SPECS.items():
        out, calls = count_calls(grading.validate, _text(template, s), spec)
        assert calls <= MAX_CALLS, (kind, calls)
        assert not s.exists()
        assert isinstance(out["valid"], bool)


# -- derivations: size and shape ---------------------------------------------------------------

def _lines(n: int) -> list[str]:
    return ["x + 1"] + ["= 1 + x"] * (n - 1)


DERIVATIONS: list[tuple[str, object]] = [
    ("500-lines", _lines(500)),
    ("500-lines-text", "\n".join(_lines(500))),
    ("10000-lines", ["x"] * 10_000),
    ("empty-list", []),
    ("empty-line", ["", "   "]),  # only blank lines (blank lines between steps are skipped, as in text)
    ("non-text-line", ["x + 1", 3]),
    ("dict-line", ["x + 1", {"__class__": 1}]),
    ("nested-lines", [["x + 1"], ["= 1 + x"]]),
    ("object-lines", [object()]),
    ("dict", {"lines": ["x + 1"]}),
    ("only-equals", ["= = ="]),
    ("starts-with-equals", ["= x + 1"]),
    ("100kB-line", ["x + 1", "= " + "x" * 100_000]),
    ("chained-relations", ["x + 1 = 1 + x = x + 1 = 1"]),
    ("inequality", ["x + 1", "x + 1 < x + 2"]),
    ("hostile-in-last-line", ["x + 1", "= 1 + x", "= __import__('os').system('touch {s}')"]),
    ("tex-in-line", ["x + 1", "= \\input{/etc/passwd}"]),
    ("bomb-in-line", ["x + 1", "= (x+1)^999999"]),
]


@pytest.mark.parametrize("name,raw", DERIVATIONS, ids=[n for n, _ in DERIVATIONS])
def test_hostile_derivations(pool, tmp_path, name, raw):
    s = tmp_path / "sentinel"
    if isinstance(raw, list):
        raw = [_text(x, s) if isinstance(x, str) else x for x in raw]
    spec = SPECS["derivation"]
    _graded(lambda: grading.grade(raw, spec, {}, timeout=LIMIT_S), s)
    if isinstance(raw, list) and all(isinstance(x, str) for x in raw):
        _graded(lambda: check_derivation(raw, spec["start"], spec["goal"], V, timeout=LIMIT_S), s)


# -- numeric, array and choice parts given hostile structures ----------------------------------

def _deep_list(depth: int) -> list:
    x: list = [1.0]
    for _ in range(depth):
        x = [x]
    return x


ARRAYS: list[tuple[str, object]] = [
    ("million-elements", [0.0] * 1_000_000),
    ("million-empty-rows", [[] for _ in range(1_000_000)]),
    ("ragged", [[1.0, 2.0], [3.0]]),
    ("ragged-deep", [[[1.0], [2.0, 3.0]], [[4.0], [5.0]]]),
    ("nested-dict", [{"a": {"b": 1}}, [2.0]]),
    ("dict-elements", [[{"__class__": 1}, 2.0], [3.0, 4.0]]),
    ("deep-10000", _deep_list(10_000)),
    ("json-deep", "[" * 100_000 + "]" * 100_000),
    ("json-huge", json.dumps([[0.5] * 1000] * 200)),
    ("json-code", "[__import__('os').system('touch {s}')]"),
    ("json-nan-text", "[NaN, Infinity, [1]]"),
    ("strings-hostile", [["__import__('os').system('touch {s}')", "9^9^9^9"], ["x" * 100_000, "\x00"]]),
    ("huge-int-element", [[10 ** 5000, 1.0], [1.0, 1.0]]),
    ("bool-elements", [[True, False], [True, False]]),
    ("object-element", [[object(), 1.0], [1.0, 1.0]]),
    ("bytes-elements", [[b"1", b"2"], [b"3", b"4"]]),
    ("1MB-text", "[" + "1," * 500_000 + "1]"),
]


@pytest.mark.parametrize("name,raw", ARRAYS, ids=[n for n, _ in ARRAYS])
def test_hostile_arrays(pool, tmp_path, name, raw):
    s = tmp_path / "sentinel"
    if isinstance(raw, str):
        raw = _text(raw, s)
    _graded(lambda: grading.grade(raw, SPECS["array"], {}), s, MAX_ARRAY_CALLS)


NUMERIC_STRINGS = ["ln(2)/2 + __import__('os').system('touch {s}')", "1" * 3000, "0x1p-2", "1_000",
                   "9" * 400 + ".0", "1e400", "-1e400", "exp(1000)", "10^400", "nan nan", "0.5\x00",
                   "0.5\u202e", "2½", "٠٫٥", "0.5 " * 1000, "sum(range(10**9))"]


@pytest.mark.parametrize("raw", NUMERIC_STRINGS, ids=range(len(NUMERIC_STRINGS)))
def test_hostile_numeric_text(pool, tmp_path, raw):
    s = tmp_path / "sentinel"
    _graded(lambda: grading.grade(_text(raw, s), SPECS["numeric"], {}), s)


CHOICES: list[tuple[str, object]] = [
    ("list-of-objects", [object(), object()]),
    ("list-of-dicts", [{"id": "a"}, {"id": "c"}]),
    ("list-of-lists", [["a"], ["c"]]),
    ("list-of-ints", [1, 3]),
    ("tuple-of-none", (None,)),
    ("huge-list", ["a"] * 100_000),
    ("option-text-attack", "a,c,__import__('os').system('touch {s}')"),
    ("long-text", "a," * 50_000),
    ("empty-text", ""),
    ("empty-list", []),
]


@pytest.mark.parametrize("name,raw", CHOICES, ids=[n for n, _ in CHOICES])
def test_hostile_choices(pool, tmp_path, name, raw):
    s = tmp_path / "sentinel"
    if isinstance(raw, str):
        raw = _text(raw, s)
    _graded(lambda: grading.grade(raw, SPECS["choice"], {}), s)
