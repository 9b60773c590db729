"""Answer kinds: importing this package registers every kind (see :mod:`.base`).

Each kind is one folder ``<name>/`` (its :class:`~.base.Kind`, page widget and browser behaviour); the
service iterates over the registry and never names a kind.
"""

from . import base
from . import array, choice, code, derivation, freetext, numeric, symbolic  # noqa: F401  (register themselves)
from .base import Examples, Kind, all_kinds, find_kind, get_kind, kind_names, register_kind

__all__ = ["Examples", "Kind", "all_kinds", "base", "find_kind", "get_kind", "kind_names", "register_kind"]
