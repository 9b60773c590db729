"""What the maths kinds (symbolic, derivation) share about a part: its declared names checked, its
authored expressions parsed when the question is loaded, the names a learner may see, and sympy warmed
before the first answer is timed.

Authored expressions are parsed by the same safe parser as answers (:func:`checkers.mathparse.parse_math`,
no ``sympify``) after the variant's placeholders are filled in; one holding a placeholder is checked per
variant by the bank's self-test instead.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..mathparse import parse_math
from ..params import PLACEHOLDER, substitute_text
from ..verdict import AnswerParseError, Message, SpecError, msg

_WARM = False


def warm_parser() -> None:
    """Pay sympy's one-off lazy initialisation outside the parser's per-answer CPU budget.

    The first expression a process builds costs ~30 ms of extra CPU (close to the parser's 50 ms
    budget), so on a busy machine the first symbolic part validated could be rejected as "too complex".
    """
    global _WARM
    if _WARM:
        return
    _WARM = True
    for text in ("exp(x) - x - 1", "ln(x)^2/2 + sqrt(x)", "sigma(x)*(1 - x)"):
        try:
            parse_math(text, {"x": {"real": True}})
        except Exception:
            pass


def parse_spec_expr(text: str, spec: Mapping[str, Any], params: Mapping[str, Any] | None = None,
                    allow_relation: bool = False):
    """Parse authored maths (expected answers, mistakes) after placeholder substitution."""
    if params is not None:
        text = substitute_text(text, params)
    return parse_math(text, spec.get("variables") or {}, spec.get("functions") or {},
                      allow_relation=allow_relation)


def validate_common(spec: Mapping[str, Any]) -> None:
    variables = spec.get("variables") or {}
    if not isinstance(variables, Mapping):
        raise SpecError("variables: must be a mapping {name: assumptions}")
    for name, a in variables.items():
        if a is not None and not isinstance(a, Mapping):
            raise SpecError(f"variables.{name}: assumptions must be a mapping")
    functions = spec.get("functions") or {}
    if not isinstance(functions, Mapping):
        raise SpecError("functions: must be a mapping {name: {args, expr}}")


def spec_parse_check(text: Any, spec: Mapping[str, Any], where: str, allow_relation: bool = False) -> None:
    if not isinstance(text, str) or not text.strip():
        raise SpecError(f"{where}: must be a non-empty maths string")
    if PLACEHOLDER.search(text):
        return  # checked per variant by the bank's self-test
    try:
        parse_spec_expr(text, spec, None, allow_relation)
    except AnswerParseError as exc:
        raise SpecError(f"{where}: {exc.message}") from None


def public_names(part: Mapping[str, Any]) -> dict[str, Any]:
    """Input hints only: the names a learner may use, never the expected expression."""
    spec = part.get("variables")
    names = list(spec) if isinstance(spec, Mapping) else list(spec or [])
    funcs = part.get("functions") or {}
    return {"variables": names,
            "functions": {name: list((f or {}).get("args", [])) for name, f in funcs.items()}}


#: JSON Schema of the fields :func:`public_names` gives (OpenAPI ``PublicPart``).
PUBLIC_NAMES_SCHEMA = {"variables": {"type": "array", "items": {"type": "string"}}, "functions": {"type": "object"}}


def names_of(part: Mapping[str, Any]) -> str:
    """The names a learner may use in a part of the public view, as one comma-separated list."""
    return ", ".join(str(n) for n in part.get("variables") or [])


def maths_syntax_help(part: Mapping[str, Any]) -> Message:
    """The line under a maths input: how to write products, powers, logs, and the names it takes."""
    rule = msg("Write * for products, ^ for powers, ln() and exp() for logs and exponentials.")
    names = names_of(part)
    if not names:
        return rule
    also = msg("Names you may use: %(names)s.", names=names)
    return {lang: f"{rule[lang]} {also[lang]}" for lang in rule}


__all__ = ["PUBLIC_NAMES_SCHEMA", "maths_syntax_help", "names_of", "parse_spec_expr", "public_names",
           "spec_parse_check", "validate_common", "warm_parser"]
