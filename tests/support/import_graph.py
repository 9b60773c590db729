"""What a source file imports, read with ``ast`` (nothing is imported to check): the helper the layer tests
share (tests/test_layers.py, tests/test_layers_checkers.py, tests/service/test_layers_service.py)."""

from __future__ import annotations

import ast
from pathlib import Path


def module_name(path: Path, package_root: Path) -> str:
    """The dotted name of the module in ``path`` (``package_root`` is the package's folder, e.g. quizapp/)."""
    parts = path.relative_to(package_root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, package_root: Path) -> set[str]:
    """Every module ``path`` imports, function-local imports included and relative imports resolved;
    ``from pkg import name`` also counts as ``pkg.name`` (``name`` may be a module)."""
    name = module_name(path, package_root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            out.add(module)
            out.update(f"{module}.{alias.name}" for alias in node.names)
    return out
