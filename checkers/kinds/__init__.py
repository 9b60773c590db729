"""Answer kinds: importing this package registers every checker (see :mod:`.base`)."""

from . import base
from . import array, choice, code, derivation, freetext, numeric, symbolic  # noqa: F401  (register themselves)
from .base import Examples, checker_kinds, get_checker, grade_raw, register_checker

__all__ = ["Examples", "base", "checker_kinds", "get_checker", "grade_raw", "register_checker"]
