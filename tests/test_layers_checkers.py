"""The grading package's layers, read from the source with ``ast`` (function-local imports included, nothing
imported to check): ``checkers`` imports nothing of the web service (``quizapp``, Flask, Werkzeug,
SQLAlchemy, Alembic, Flask-Babel), and its parts import one way, down the order of :data:`LAYERS` (the table
of docs/architecture.md lists them in that order): the reference engine imports no other part of
``checkers``, the parser, the sandbox, equivalence, code running and parameters import no answer kind, and
the kinds import neither the grading facade nor the bank."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import import_graph
from package_sources import shipped_sources

ROOT = Path(importlib.util.find_spec("checkers").submodule_search_locations[0])

#: The parts of ``checkers`` (a top-level module or package), lowest first: a part may import a part of its
#: own row or of an earlier one, never of a later one.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("limits", "languages", "i18n", "verdict", "budget", "memo", "child_cpus"),
    ("reference",),
    ("mathparse",),
    ("worker_pool", "sandbox"),
    ("equivalence",),
    ("coderun",),
    ("tensor_compare",),
    ("params",),
    ("kinds",),
    ("grading",),
    ("bank",),
    ("jobs",),
)

#: The reference engine sits on torch alone: it imports no other part, not even the foundations.
ALONE = {"reference"}

#: (importer, imported) pairs that go up the order on purpose, each with its reason.
UPWARD = {
    ("verdict", "mathparse"): "an interpretation's spoken text is read from its MathML on demand "
                              "(function-local: mathparse imports verdict)",
}

WEB = ("quizapp", "flask", "flask_babel", "werkzeug", "sqlalchemy", "alembic")


def _parts() -> set[str]:
    """Every top-level module and package of ``checkers``."""
    out = {p.stem for p in ROOT.glob("*.py") if p.name != "__init__.py"}
    return out | {p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file()}


def _imports(path: Path) -> set[str]:
    return import_graph.imports(path, ROOT)


def _part_of(path: Path) -> str:
    return path.relative_to(ROOT).parts[0].removesuffix(".py")


def _edges() -> set[tuple[str, str]]:
    """(importing part, imported part) for every import between two different parts of ``checkers``."""
    parts, edges = _parts(), set()
    for path in shipped_sources(ROOT):
        if path == ROOT / "__init__.py":
            continue
        here = _part_of(path)
        for module in _imports(path):
            bits = module.split(".")
            if bits[0] == "checkers" and len(bits) > 1 and bits[1] in parts and bits[1] != here:
                edges.add((here, bits[1]))
    return edges


def _rank() -> dict[str, int]:
    return {part: i for i, row in enumerate(LAYERS) for part in row}


def test_every_part_of_checkers_has_its_layer():
    assert _parts() == set(_rank()), "place the new part in LAYERS (and in docs/architecture.md's table)"


def test_the_reader_sees_relative_absolute_and_local_imports():
    edges = _edges()
    assert ("grading", "kinds") in edges  # from . import kinds
    assert ("sandbox", "worker_pool") in edges  # from .worker_pool import ...
    assert ("verdict", "mathparse") in edges  # a function-local import


def test_checkers_imports_nothing_of_the_web_service():
    found = sorted(f"{path.relative_to(ROOT)}: {module}" for path in shipped_sources(ROOT)
                   for module in _imports(path) if module.split(".")[0] in WEB)
    assert found == []


def test_the_parts_import_one_way_down_the_layers():
    rank = _rank()
    upward = {(a, b) for a, b in _edges() if rank[b] > rank[a]}
    assert upward == set(UPWARD), "an import goes up the layers: move the code, or say why in UPWARD"


def test_the_engine_imports_no_other_part():
    assert {b for a, b in _edges() if a in ALONE} == set()


def test_each_exception_names_a_real_import_and_says_why():
    edges = _edges()
    for pair, reason in UPWARD.items():
        assert pair in edges and reason.strip(), pair
