"""The Python files a package ships, for the tests that read the source (layers, function-local imports,
module size): every ``.py`` under the package's folder except a kind's own tests
(``checkers/kinds/<kind>/tests``), which stay in the checkout and are left out of the wheel (pyproject.toml)."""

from __future__ import annotations

from pathlib import Path


def is_kind_test(rel: Path) -> bool:
    """Whether ``rel`` (a path relative to the checkout or to a package) lies in a kind's ``tests`` folder:
    ``.../kinds/<kind>/tests/...``."""
    parts = rel.parts
    return any(parts[i] == "kinds" and parts[i + 2] == "tests" for i in range(len(parts) - 3))


def shipped_sources(root: Path) -> list[Path]:
    """The ``.py`` files under ``root`` that the package ships, sorted."""
    return sorted(p for p in root.rglob("*.py") if not is_kind_test(p.relative_to(root)))
