"""Imports inside functions in ``checkers/`` and ``quizapp/`` are kept only where they are the point (lazy
loading of torch and the reference engine, platform-only or optional packages such as the queue and the
server runners, the CLI's server command, or breaking a real import cycle), and each says why on its line
with a ``# local:`` comment; every other import sits at the top of its module."""

import ast
import importlib.util
import sys
from pathlib import Path

import pytest

from package_sources import shipped_sources

# find_spec locates a package without running it: the scan reads files and imports neither package's code
ROOTS = {name: Path(importlib.util.find_spec(name).submodule_search_locations[0])
         for name in ("checkers", "quizapp")}
ROOT = ROOTS["checkers"]


def _local_imports(tree: ast.AST):
    """(line number, statement) of every import inside a function body, at any depth."""
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    yield node.lineno


def _offenders(root: Path | None = None) -> list[str]:
    root = ROOT if root is None else root
    out = []
    for path in shipped_sources(root):
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for lineno in sorted(set(_local_imports(ast.parse(text)))):
            if "# local:" not in lines[lineno - 1]:
                out.append(f"{rel}:{lineno}: {lines[lineno - 1].strip()}")
    return out


@pytest.mark.parametrize("package", sorted(ROOTS))
def test_every_function_local_import_says_why(package):
    assert _offenders(ROOTS[package]) == []


def _found(package: str, rel: str) -> list[str]:
    text = (ROOTS[package] / rel).read_text(encoding="utf-8")
    lines = text.splitlines()
    return [lines[n - 1].strip() for n in _local_imports(ast.parse(text))]


def test_the_scan_finds_the_known_lazy_imports():
    # the scan itself works: it sees the engine's lazy torch import in the parameter module, the code kind's
    # and the engine API's lazy torch imports, and the optional queue backend
    found = _found("checkers", "params.py")
    assert any(s.startswith("import torch") for s in found)
    assert any(s.startswith("from . import reference") for s in found)
    assert any(s.startswith("from .grade import") for s in _found("checkers", "kinds/code/checker.py"))
    assert any(s.startswith("import torch") for s in _found("quizapp", "api/reference.py"))
    assert any(s.startswith("from .rq_queue import") for s in _found("quizapp", "grading_backends/__init__.py"))


def test_an_uncommented_local_import_is_reported(tmp_path, monkeypatch):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "m.py").write_text("import json\n\ndef f():\n    import os\n    return os.sep\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", pkg)
    assert _offenders() == ["m.py:4: import os"]
    assert _offenders(pkg) == ["m.py:4: import os"]
