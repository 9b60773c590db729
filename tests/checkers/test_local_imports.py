"""Imports inside functions in ``checkers/`` are kept only where they are the point (lazy loading of torch,
the parser and sympy, platform-only modules, or breaking an import cycle), and each says why on its line
with a ``# local:`` comment; every other import sits at the top of its module."""

import ast
import sys
from pathlib import Path

import checkers

ROOT = Path(checkers.__file__).parent


def _local_imports(tree: ast.AST):
    """(line number, statement) of every import inside a function body, at any depth."""
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    yield node.lineno


def _offenders() -> list[str]:
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for lineno in _local_imports(ast.parse(text)):
            if "# local:" not in lines[lineno - 1]:
                out.append(f"{rel}:{lineno}: {lines[lineno - 1].strip()}")
    return out


def test_every_function_local_import_says_why():
    assert _offenders() == []


def test_the_scan_finds_the_known_lazy_imports():
    # the scan itself works: it sees the engine's lazy torch import in the parameter module
    text = (ROOT / "params.py").read_text(encoding="utf-8")
    lines = text.splitlines()
    found = [lines[n - 1].strip() for n in _local_imports(ast.parse(text))]
    assert any(s.startswith("import torch") for s in found)
    assert any(s.startswith("from . import reference") for s in found)


def test_an_uncommented_local_import_is_reported(tmp_path, monkeypatch):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "m.py").write_text("import json\n\ndef f():\n    import os\n    return os.sep\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", pkg)
    assert _offenders() == ["m.py:4: import os"]
