"""Answer kinds: importing this package registers every kind (see :mod:`.base`).

Each kind is one folder ``<name>/`` (its :class:`~.base.Kind`, page widget and browser behaviour); the
service iterates over the registry and never names a kind.
"""

from . import base
from . import array, choice, code, derivation, freetext, numeric, symbolic  # noqa: F401  (register themselves)
from .base import (Examples, Kind, all_kinds, checker_kinds, get_checker, get_kind, grade_raw, kind_names,
                   register_checker, register_kind)
# Helper modules that lived next to the kinds before each kind became a folder.
from .derivation import form as derivation_form, keysteps as derivation_keysteps  # noqa: F401
from .numeric import precision  # noqa: F401

__all__ = ["Examples", "Kind", "all_kinds", "base", "checker_kinds", "get_checker", "get_kind", "grade_raw",
           "kind_names", "register_checker", "register_kind"]
