"""The torch reference engine (its names, arguments and conventions: ``docs/reference.md``).

``names()`` lists every function, ``describe(name)`` gives its docstring and parameter schema, and
``call(name, **kwargs)`` validates and runs it, returning a dict of named tensors. Importing this
package imports every family module, each of which registers its functions.
"""

from __future__ import annotations

from .errors import ReferenceInputError, UnknownFunction
from .registry import call, describe, get, names
from . import families as _families  # noqa: F401  (registers every function)

__all__ = ["ReferenceInputError", "UnknownFunction", "call", "describe", "get", "names"]
