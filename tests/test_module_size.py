"""No module in ``quizapp/`` or ``checkers/`` grows past 400 lines: a module that long holds more than one
job, and it is split into modules with one job each. A deliberate exception is listed in
:data:`EXCEPTIONS` with its reason, and the list is kept honest: an entry whose module is gone or back
under the limit fails too. Files are read, not imported."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from package_sources import shipped_sources

MAX_LINES = 400
ROOTS = {name: Path(importlib.util.find_spec(name).submodule_search_locations[0])
         for name in ("checkers", "quizapp")}
#: "package/path/in/it.py" -> why it may be longer than MAX_LINES. None at present.
EXCEPTIONS: dict[str, str] = {}


def _line_counts(root: Path) -> dict[str, int]:
    """Lines of every ``.py`` file under ``root``, by path relative to it (as ``wc -l`` counts them)."""
    return {path.relative_to(root).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
            for path in shipped_sources(root)}


def _too_long(package: str, root: Path) -> dict[str, int]:
    return {rel: n for rel, n in _line_counts(root).items()
            if n > MAX_LINES and f"{package}/{rel}" not in EXCEPTIONS}


@pytest.mark.parametrize("package", sorted(ROOTS))
def test_no_module_is_longer_than_the_limit(package):
    assert _too_long(package, ROOTS[package]) == {}, f"split these {package} modules into modules with one job"


def test_every_exception_names_a_long_module_and_says_why():
    for name, reason in EXCEPTIONS.items():
        package, rel = name.split("/", 1)
        assert reason.strip(), name
        assert _line_counts(ROOTS[package]).get(rel, 0) > MAX_LINES, f"{name} is gone or short: drop it"


def test_the_count_reports_a_module_one_line_over(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "long.py").write_text("x = 1\n" * (MAX_LINES + 1), encoding="utf-8")
    (tmp_path / "short.py").write_text("x = 1\n" * MAX_LINES, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("x\n" * (MAX_LINES + 5), encoding="utf-8")
    assert _too_long("pkg", tmp_path) == {"sub/long.py": MAX_LINES + 1}
