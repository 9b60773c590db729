"""How a question file is checked, field by field: :class:`BankError` (the file, the dotted field path
with list items as ``parts[2]``, the problem) and :class:`FieldChecker`, whose checks raise it, plus the
checks every section of the schema shares (placeholders name parameters, value specs have one form).
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from ..languages import LANGS
from ..limits import MAX_FORMAT_FIELD
from ..params import PLACEHOLDER, format_spec_oversize


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



def join(path: str, key: Any) -> str:
    """``path`` extended by a key (``a.b``) or a list index (``a[2]``)."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)



class FieldChecker:
    """The checks of one file's fields; each failure raises :class:`BankError` naming ``file``."""

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
            self.fail(join(field, unknown[0]),
                      f"unknown key (allowed here: {', '.join(sorted(allowed))})")

    def text(self, value: Any, field: str) -> None:
        if not isinstance(value, str) or not value.strip():
            self.fail(field, "must be a non-empty string")

    def bilingual(self, value: Any, field: str, *, lists: bool = False) -> None:
        m = self.mapping(value, field)
        for lang in LANGS:
            if lang not in m:
                self.fail(join(field, lang), f"missing ({'English' if lang == 'en' else 'Chinese'} text is required)")
        self.keys(m, set(LANGS), field)
        for lang in LANGS:
            if lists:
                items = m[lang]
                if not isinstance(items, list) or not items:
                    self.fail(join(field, lang), "must be a non-empty list of strings")
                for i, item in enumerate(items):
                    self.text(item, join(join(field, lang), i))
            else:
                self.text(m[lang], join(field, lang))
        if lists and len(m["en"]) != len(m["zh"]):
            self.fail(field, f"en has {len(m['en'])} items but zh has {len(m['zh'])}")



def strings(obj: Any, path: str) -> Iterator[tuple[str, str]]:
    """(field path, text) of every string inside ``obj``."""
    if isinstance(obj, str):
        yield path, obj
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from strings(v, join(path, i))
    elif isinstance(obj, Mapping):
        for k, v in obj.items():
            yield from strings(v, join(path, k))


def check_placeholders(ctx: FieldChecker, obj: Any, path: str, known: set[str]) -> None:
    """Every ``{{name}}`` in the strings of ``obj`` names a parameter of ``known``, and is well formed; a format
    spec asks for no width or precision above :data:`~checkers.limits.MAX_FORMAT_FIELD` (a spec that is no
    format spec at all fails when it is filled: the self-test names its text)."""
    for where, text in strings(obj, path):
        for m in PLACEHOLDER.finditer(text):
            if m.group(1) not in known:
                ctx.fail(where, f"placeholder {{{{{m.group(1)}}}}} names no parameter"
                                f" (parameters: {', '.join(sorted(known)) or 'none'})")
            over = format_spec_oversize(m.group(2)) if m.group(2) else None
            if over is not None:
                ctx.fail(where, f"placeholder {m.group(0)} asks for a {over}: at most {MAX_FORMAT_FIELD} "
                                f"(a number needs no more; a wider field would be allocated on every view)")
        if "{{" in PLACEHOLDER.sub("", text):  # one that is not a placeholder would be shown as typed
            ctx.fail(where, "malformed placeholder: use {{name}} or {{name:.4f}} (a format spec of at most "
                            "12 characters)")



def check_value_spec(ctx: FieldChecker, spec: Any, field: str) -> None:
    """Light structural check of a value spec; the checker validates the rest."""
    if isinstance(spec, Mapping):
        forms = [k for k in ("value", "expr", "call") if k in spec]
        if len(forms) != 1:
            ctx.fail(field, "a value spec needs exactly one of value, expr, call")

