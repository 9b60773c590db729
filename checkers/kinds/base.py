"""The one protocol every answer kind implements, and the registry the framework iterates over.

An answer kind is one self-contained unit (cf. a PrairieLearn element or a CTFd challenge type): a folder
``checkers/kinds/<name>/`` holding its :class:`Kind` subclass, its page widget (``partial.html``, a Jinja
partial: data, not Flask code) and its browser behaviour (``kind.js``). The service and the bank never
name a kind; they call :func:`get_kind` and the methods below.

* ``accept(value, field)``        -> the answer's JSON shape checked (:class:`AnswerShapeError` otherwise)
* ``parse(raw, spec)``            -> a parsed answer, or raise :class:`AnswerParseError` (column-precise)
* ``interpret(parsed, spec)``     -> :class:`Interpretation` (the "interpreted as" preview)
* ``warning(parsed, spec)``       -> a readable answer's caution ({"en","zh"}) or None
* ``grade(parsed, spec, params)`` -> :class:`Verdict`
* ``grade_answer(raw, ...)``      -> :class:`Verdict`: the whole grading path (parse + grade by default)
* ``check(raw, spec, params)``    -> an optional practice run that costs no attempt (None: not offered)
* ``expected(spec, params)``      -> the JSON-able expected answer shown after an attempt
* ``examples(spec, params)``      -> :class:`Examples` (correct / incorrect / invalid raw answers)
* ``validate_spec(spec)``         -> raise :class:`SpecError` if the authored part is malformed
* ``public(part, params, lang, fill)`` -> the kind's own fields of the learner's view

What the service asks a kind beyond grading (so that no module outside ``checkers/kinds/`` names one):

* ``placeholder(part)`` / ``syntax_help(part)`` -> the input's placeholder and syntax line ({"en","zh"})
* ``page(part, render)``          -> the kind's own fields of the page view (texts rendered by ``render``)
* ``plain_form`` / ``form_answer(values, part)`` -> whether and how a plain HTML form (a mock interview)
  answers a part, and the answer from the form's values
* ``answer_form``                 -> how a given or expected answer is shown (text, verbatim, options)
* ``answer_schema`` / ``public_schema`` -> the answer's and the public fields' JSON Schema (OpenAPI)
* ``read_back(details)``          -> the fields a stored verdict's details add to an attempt read back
* ``queued``                      -> whether a queue backend sends its grading to grading hosts
* ``param_exprs``                 -> whether ``expr`` in ``expected``/``mistakes`` is a number of the parameters
* ``starter_file``                -> the authoring tool's starter question (``starter.yaml`` in the folder)

Its learner-facing text lives in its folder too: ``messages.pot`` (extracted from the folder) and one
``<lang>.po`` per language, served by :mod:`checkers.i18n` once the kind is registered.

``spec`` is the part as authored (a dict from the question file); ``params`` are the variant's
parameter values. Kinds resolve ``{{name}}`` placeholders and reference-engine calls themselves
through :mod:`checkers.params`.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Mapping

from .. import i18n
from ..verdict import AnswerParseError, AnswerShapeError, Interpretation, Message, SpecError, Verdict, msg
from ..limits import GRADE_TIMEOUT  # noqa: F401  (re-exported: kinds import it from here)
from ..params import substitute_text


@dataclass
class Examples:
    correct: list[Any] = field(default_factory=list)
    incorrect: list[tuple[Any, str | None]] = field(default_factory=list)  # (raw answer, expected note id or None)
    invalid: list[Any] = field(default_factory=list)


def invalid_verdict(err: AnswerParseError, interp: Interpretation | None = None) -> Verdict:
    """An unreadable answer: ``invalid``, costs no attempt, and says where it could not be read."""
    return Verdict("invalid", 0.0, dict(err.texts), "parse_error", interp,
                   {"error": err.to_dict()})


def too_complex_verdict(exc: BaseException) -> Verdict:
    return invalid_verdict(AnswerParseError("The answer is too complex to read (%(detail)s).", None,
                                            detail=type(exc).__name__))


class Fill:
    """What :meth:`Kind.public` gets as ``fill``: ``fill(obj)`` substitutes the variant's parameters into
    text (a string, a list of strings, or a bilingual block {"en","zh"} -> the text in ``lang``); it also
    names the variant (``question_id``, ``seed``, ``lang``, ``params``) for what depends on it, such as
    the display order of options."""

    def __init__(self, params: Mapping[str, Any], lang: str, question_id: str = "", seed: int = 0):
        self.params, self.lang, self.question_id, self.seed = params, lang, question_id, seed

    def __call__(self, obj: Any) -> Any:
        if isinstance(obj, str):
            return substitute_text(obj, self.params)
        if isinstance(obj, list):
            return [self(v) for v in obj]
        if isinstance(obj, Mapping) and self.lang in obj:
            return substitute_text(obj[self.lang], self.params)
        return obj


class Kind:
    """Defaults of the protocol; a kind overrides what it needs.

    Class attributes a kind sets:

    * ``name``            the ``kind:`` value of a part in a question file
    * ``spec_keys``       its part keys beyond the common ones (``None``: the kind checks its keys itself)
    * ``value_keys``      keys holding a value spec (literal, ``{{param}}`` or engine call) the bank schema
                          checks, and which must be present
    * ``default_weight``  a part's weight when the file gives none (self-assessed text: 0)
    * ``machine_graded``  whether the service can judge answers (self-assessed text cannot)
    * ``mistake_answers`` whether each known mistake is an answer that can be graded (the authoring tool
                          then checks that none of them grades correct)
    * ``assets``          browser files of the kind's folder that its pages load
    * ``queued``          grading is heavy work (running learner code): a queue backend sends it to grading hosts
    * ``answer_form``     how an answer, given or expected, is shown: ``"text"``, ``"verbatim"`` (program text
                          or lines of working, in a code block) or ``"options"`` (option ids, shown by text)
    * ``plain_form``      how a plain HTML form answers a part (a mock interview): ``"text"`` (one text field),
                          ``"widget"`` (the kind's ``form.html``, fields named ``a-<part id>``) or ``None`` (the
                          question page's editors are needed: not offered)
    * ``param_exprs``     an ``expr`` in ``expected`` or ``mistakes`` is a number computed from the parameters
                          (the authoring tool parses it with the first variant's values); False where it is
                          the answer's own formula in the part's variables
    * ``answer_schema``   JSON Schema of an answer (the OpenAPI ``Answer`` is the union over the kinds)
    * ``public_schema``   JSON Schema properties of the fields :meth:`public` adds (merged into ``PublicPart``)
    """

    name: ClassVar[str] = ""
    spec_keys: ClassVar[frozenset[str] | None] = frozenset()
    value_keys: ClassVar[tuple[str, ...]] = ()
    default_weight: ClassVar[float] = 1  # an int where whole, so views show 1 as before
    machine_graded: ClassVar[bool] = True
    mistake_answers: ClassVar[bool] = False
    assets: ClassVar[tuple[str, ...]] = ()
    queued: ClassVar[bool] = False
    answer_form: ClassVar[str] = "text"
    plain_form: ClassVar[str | None] = None
    param_exprs: ClassVar[bool] = True
    answer_schema: ClassVar[Mapping[str, Any]] = {"type": "string", "description": "text"}
    public_schema: ClassVar[Mapping[str, Mapping[str, Any]]] = {}

    # ---------------------------------------------------------------- the unit's files
    @property
    def kind(self) -> str:
        """The old name of :attr:`name`."""
        return self.name

    @property
    def template(self) -> str:
        """The page widget, relative to the kinds' template root: ``<name>/partial.html``."""
        return f"{self.name}/partial.html"

    @property
    def folder(self) -> Path:
        """The folder of the module that defines this kind: where its partial and assets live."""
        return Path(inspect.getfile(type(self))).resolve().parent

    def asset_path(self, filename: str) -> Path | None:
        """The file of a listed asset, or None for any name the kind does not list."""
        if filename not in self.assets:
            return None
        path = self.folder / filename
        return path if path.is_file() else None

    @property
    def starter_file(self) -> Path | None:
        """The authoring tool's starter question for this kind (``starter.yaml`` in its folder), if any:
        a valid question that passes its self-test as is."""
        path = self.folder / "starter.yaml"
        return path if path.is_file() else None

    @property
    def form_template(self) -> str | None:
        """A plain form's widget (``<name>/form.html``) where :attr:`plain_form` is ``"widget"``."""
        return f"{self.name}/form.html" if self.plain_form == "widget" else None

    # ---------------------------------------------------------------- pages
    def placeholder(self, part: Mapping[str, Any]) -> Message | None:
        """The input's placeholder ({"en","zh"}) for a part of the public view, from its kind and names
        (never its answer); None for none. An author's ``placeholder:`` overrides it."""
        return None

    def syntax_help(self, part: Mapping[str, Any]) -> Message | None:
        """One line under the input saying what it takes ({"en","zh"}); None where no help is needed."""
        return None

    def page(self, part: Mapping[str, Any], render: Callable[[str], Any]) -> dict[str, Any]:
        """The kind's own fields of the page view of a public part; ``render(text)`` turns Markdown with
        maths into safe inline HTML."""
        return {}

    def form_answer(self, values: list[str], part: Mapping[str, Any]) -> Any:
        """The answer a plain form sent: ``values`` are the form's values named ``a-<part id>``."""
        return values[0] if values else ""

    def read_back(self, details: Mapping[str, Any]) -> dict[str, Any]:
        """Fields a stored verdict's ``details`` add at the top of the part when an attempt is read back
        (for clients that show them beside the verdict)."""
        return {}

    # ---------------------------------------------------------------- authoring
    def validate_spec(self, spec: Mapping[str, Any]) -> None:
        """Raise :class:`SpecError` if the authored part is malformed (``SpecError(..., field=key)`` to
        name the part's key)."""

    def warm(self) -> None:
        """Pay one-off lazy initialisation before validating parts (outside any per-answer budget)."""

    def public(self, part: Mapping[str, Any], params: Mapping[str, Any], lang: str,
               fill: Callable[[Any], Any]) -> dict[str, Any]:
        """The kind's own fields of the learner's view (never the expected answer).

        ``fill(obj)`` substitutes the variant's parameters into text or a bilingual block
        ({"en","zh"} -> the text in ``lang``).
        """
        return {}

    # ---------------------------------------------------------------- answers
    def accept(self, value: Any, field: str) -> Any:
        """The answer in the form the checker takes, or raise :class:`AnswerShapeError` naming ``field``."""
        return value

    def parse(self, raw: Any, spec: Mapping[str, Any]) -> Any:
        return raw

    def interpret(self, parsed: Any, spec: Mapping[str, Any]) -> Interpretation:
        return Interpretation(text=str(parsed))

    def warning(self, parsed: Any, spec: Mapping[str, Any]) -> Message | None:
        return None

    def grade(self, parsed: Any, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Verdict:
        raise NotImplementedError(f"kind {self.name!r} does not grade")

    def grade_answer(self, raw: Any, spec: Mapping[str, Any], params: Mapping[str, Any], *,
                     timeout: float | None = None) -> Verdict:
        """The whole grading path: parse + grade; an unreadable answer is ``invalid`` (costs no attempt)."""
        try:
            parsed = self.parse(raw, spec)
        except AnswerParseError as err:
            return invalid_verdict(err)
        except SpecError:
            raise  # the part is malformed: an authoring error, not the learner's
        except Exception as exc:  # odd learner input a reader did not foresee: invalid, never a crash
            return too_complex_verdict(exc)
        return self.grade(parsed, spec, params)

    def check(self, raw: Any, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Verdict | None:
        """A practice run that costs no attempt; None where the kind offers none."""
        return None

    def expected(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Any:
        return None

    def examples(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Examples:
        return Examples()


_KINDS: dict[str, Kind] = {}


def register_kind(kind: Kind) -> Kind:
    if not isinstance(kind, Kind):
        raise TypeError(f"{kind!r} is not a Kind")
    if not kind.name:
        raise RuntimeError(f"{type(kind).__name__} has no name")
    if kind.name in _KINDS:
        raise RuntimeError(f"answer kind {kind.name!r} registered twice")
    _KINDS[kind.name] = kind
    i18n.add_message_folder(kind.folder)  # its own catalogs (<lang>.po in its folder) serve its text
    return kind


def unregister_kind(name: str) -> None:
    """Remove a kind (tests that register an example kind put the registry back as it was)."""
    kind = _KINDS.pop(name, None)
    if kind is not None:
        i18n.remove_message_folder(kind.folder)


def get_kind(name: Any) -> Kind:
    try:
        return _KINDS[name]
    except (KeyError, TypeError):
        raise SpecError(f"unknown part kind {name!r}; known: {', '.join(sorted(_KINDS))}") from None


def find_kind(name: Any) -> Kind | None:
    """The registered kind called ``name``, or None (a page shows what it can of an unknown part)."""
    return _KINDS.get(name) if isinstance(name, str) else None


def kind_names() -> list[str]:
    return sorted(_KINDS)


def all_kinds() -> list[Kind]:
    return [_KINDS[n] for n in sorted(_KINDS)]


__all__ = ["GRADE_TIMEOUT", "AnswerParseError", "AnswerShapeError", "Examples", "Fill", "Interpretation", "Kind",
           "SpecError", "Verdict", "all_kinds", "find_kind", "get_kind", "invalid_verdict", "kind_names",
           "register_kind", "too_complex_verdict", "unregister_kind"]
