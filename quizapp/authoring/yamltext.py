"""The author's YAML as text: where each field sits (line and column) and edits that keep everything else.

The stored form of a version is the author's own text (comments, key order, quoting, block scalars); the
question structure is parsed from it by :mod:`quizapp.authoring.yamlsafe` (the bounded loader). This
module reads the same text a second time with ruamel.yaml's composer, which keeps a start mark on every
node, so a validation error on ``parts[0].expected.expr`` can name the line and column it comes from; and
it makes the few edits the service itself must make (adding a missing ``id``) with ruamel.yaml's
round-trip dumper, which keeps comments and layout.

Only text that the bounded loader has already accepted reaches these functions (size, depth and alias
expansion are checked there); the walk below still visits every node once (aliases are not followed twice).
"""

from __future__ import annotations

import io
import re
from typing import Any

from ruamel.yaml import YAML

_STEP = re.compile(r"\.?([^.\[\]]+)|\[(\d+)\]")


_KEY_LINE = re.compile(r"^( *)[^\s#-][^:#]*:\s*(#.*)?$")
_DASH_LINE = re.compile(r"^( *)- ")


def _indents(text: str) -> tuple[int, int, int]:
    """(mapping, sequence, offset) indentation the text uses, so a dump writes nested blocks the same way:
    the first nested key's step and the first list's dash position under its key."""
    mapping = offset = None
    lines = text.splitlines()
    for above, line in zip(lines, lines[1:]):
        key = _KEY_LINE.match(above)
        if key is None:
            continue
        dash = _DASH_LINE.match(line)
        if dash and offset is None:
            offset = len(dash.group(1)) - len(key.group(1))
        elif mapping is None and not dash and line.strip() and not line.lstrip().startswith("#"):
            step = (len(line) - len(line.lstrip(" "))) - len(key.group(1))
            if step > 0:
                mapping = step
        if mapping is not None and offset is not None:
            break
    mapping = mapping or 2
    offset = max(offset or 0, 0)
    return mapping, offset + 2, offset


def _yaml(text: str = ""):
    y = YAML(typ="rt", pure=True)
    y.preserve_quotes = True
    y.width = 4096  # never re-wrap an author's long line
    mapping, sequence, offset = _indents(text)
    y.indent(mapping=mapping, sequence=sequence, offset=offset)
    return y


def split_path(field: str) -> list[str | int] | None:
    """``parts[0].expected.expr`` -> ``["parts", 0, "expected", "expr"]`` (None when it is no field path)."""
    if not field or field.startswith("("):
        return None
    steps: list[str | int] = []
    pos = 0
    while pos < len(field):
        m = _STEP.match(field, pos)
        if m is None:
            return None
        steps.append(int(m.group(2)) if m.group(2) is not None else m.group(1))
        pos = m.end()
    return steps


def _compose(text: str):
    try:
        return _yaml().compose(io.StringIO(text))
    except Exception:  # noqa: BLE001 - positions are a help; the bounded loader reports real errors
        return None


def locate(text: str, field: str | None) -> dict[str, Any] | None:
    """``{"line", "column", "path"}`` (1-based) of ``field`` in ``text``: the key of a mapping entry, the item
    of a list; a field that is missing points at the nearest enclosing one (``path`` names what was found).
    ``value_column`` (1-based) is where a scalar value's characters start on that line, when known."""
    steps = split_path(field or "")
    if steps is None:
        return None
    node = _compose(text)
    if node is None:
        return None
    mark_node, found = node, []
    value = node
    for step in steps:
        if isinstance(step, int) and getattr(value, "id", "") == "sequence":
            if step >= len(value.value):
                break
            value = value.value[step]
            mark_node = value
        elif isinstance(step, str) and getattr(value, "id", "") == "mapping":
            hit = next(((k, v) for k, v in value.value if getattr(k, "value", None) == step), None)
            if hit is None:
                break
            mark_node, value = hit
        else:
            break
        found.append(step)
    mark = mark_node.start_mark
    out: dict[str, Any] = {"line": mark.line + 1, "column": mark.column + 1, "path": _join(found)}
    if getattr(value, "id", "") == "scalar" and value.style in (None, '"', "'"):
        quoted = 1 if getattr(value, "style", None) in ('"', "'") else 0
        out["value_line"] = value.start_mark.line + 1
        out["value_column"] = value.start_mark.column + 1 + quoted
    return out


def _join(steps: list[str | int]) -> str:
    out = ""
    for s in steps:
        out = f"{out}[{s}]" if isinstance(s, int) else (f"{out}.{s}" if out else str(s))
    return out


def with_top_key(text: str, key: str, value: Any) -> str:
    """``text`` with top-level ``key: value`` added first (comments and layout elsewhere unchanged)."""
    y = _yaml(text)
    doc = y.load(text)
    doc.insert(0, key, value)
    buf = io.StringIO()
    y.dump(doc, buf)
    return buf.getvalue()


def line_excerpt(text: str, line: int) -> str:
    """Line ``line`` (1-based) of ``text``, at most 200 characters."""
    lines = text.splitlines()
    if 1 <= line <= len(lines):
        return lines[line - 1][:200]
    return ""
