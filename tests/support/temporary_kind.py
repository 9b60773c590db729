"""A kind package written into a temporary folder for one test, and taken out again afterwards: the example
kind of docs/architecture.md (tests/docs) and the toy kind (tests/kinds) both use it."""

from __future__ import annotations

import importlib
import sys
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Iterator, Mapping

from checkers.kinds import base, kind_names


@contextmanager
def kind_package(root: Path, package: str, files: Mapping[str, str]) -> Iterator[ModuleType]:
    """Write ``files`` (path inside the package -> text) to ``root/package``, import the package and yield it;
    afterwards unregister every kind registered meanwhile, forget the package's modules and leave the registry
    as it was (asserted)."""
    folder = root / package
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    before = kind_names()
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module(package)
    finally:
        for name in set(kind_names()) - set(before):
            base.unregister_kind(name)
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[name]
        assert kind_names() == before


def run_own_tests(module: str) -> int:
    """Run every ``test_*`` function of a temporary kind's test module; how many ran."""
    loaded = importlib.import_module(module)
    tests = [getattr(loaded, name) for name in dir(loaded) if name.startswith("test_")]
    for test in tests:
        test()
    return len(tests)
