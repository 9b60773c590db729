"""YAML from authors, bounded: ``checkers.bank.parse_yaml`` (a SafeLoader) plus a limit on the size of the
structure once aliases are expanded.

PyYAML builds ``*alias`` references as shared objects, so a "billion laughs" document parses instantly
into a tiny graph that every later step (schema walk, ``json.dumps`` for the content hash, the database's
JSON column) expands to billions of nodes; a self-referencing anchor (``&a [*a]``) even makes a cycle.
A question file has well under a thousand nodes, so anything over :data:`MAX_NODES` (or nested deeper than
:data:`MAX_DEPTH`) is refused as malformed YAML before anything else looks at it.
"""

from __future__ import annotations

from typing import Any

from checkers.bank import BankError, parse_yaml as _parse
from checkers.limits import YAML_MAX_DEPTH as MAX_DEPTH

from ..config import YAML_MAX_NODES as MAX_NODES


def check_size(data: Any, file: Any = None) -> None:
    """Raise ``BankError`` when ``data`` expands to more than MAX_NODES nodes or MAX_DEPTH levels."""
    count = 0
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        obj, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise BankError(file, "(yaml)", f"the document expands to more than {MAX_NODES} nodes "
                                            "(aliases are expanded); refused")
        if depth > MAX_DEPTH:
            raise BankError(file, "(yaml)", f"the document is nested more than {MAX_DEPTH} levels deep")
        if isinstance(obj, dict):
            for key, value in obj.items():
                stack.append((key, depth + 1))
                stack.append((value, depth + 1))
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend((value, depth + 1) for value in obj)


def parse_yaml(text: str, file: Any = None) -> Any:
    """``checkers.bank.parse_yaml`` with :func:`check_size`; raises ``BankError``."""
    data = _parse(text, file)
    check_size(data, file)
    return data
