"""The app's layers, read from the source: no blueprint package imports another blueprint package, and every
blueprint package takes its HTTP helpers (JSON bodies and responses, the error envelope, security headers,
CSRF, the page kit, OpenAPI pieces) from the shared layer :mod:`quizapp.httpkit` instead of keeping its own.

The blueprint packages are read from the app: the subpackage of ``quizapp`` that holds the module creating
each registered blueprint. A blueprint created by a module at the top of ``quizapp`` (``appearance``,
``health``, the kinds' assets) is a single module with one job, not a package of its own, and is not
counted. Imports are read with ``ast`` (function-local ones included), so nothing is imported to check.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

import import_graph
import quizapp
from quizapp.httpkit import openapi as shared_openapi

ROOT = Path(importlib.util.find_spec("quizapp").submodule_search_locations[0])
SHARED = "quizapp.httpkit"

#: What the shared layer defines once: a module elsewhere that defines a function of one of these names
#: keeps a private copy.
SHARED_NAMES = frozenset({
    "json_body", "field", "check_unknown", "query_int", "request_lang", "limit_small_bodies", "ok", "envelope",
    "is_json_request", "set_security_headers", "csrf_token", "check_csrf", "ref", "_ref", "json_response", "_json",
    "request_body", "error_responses", "query_param", "_q", "rules", "breaks_rule"})


def _module_name(path: Path) -> str:
    return import_graph.module_name(path, ROOT)


def _is_package(dotted: str) -> bool:
    return (ROOT.joinpath(*dotted.split(".")[1:]) / "__init__.py").is_file()


def _imports(path: Path) -> set[str]:
    return import_graph.imports(path, ROOT)


def _package_of(module: str, packages: set[str]) -> str | None:
    return next((p for p in packages if module == p or module.startswith(p + ".")), None)


def _sources() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.fixture(scope="module")
def blueprint_packages(tmp_path_factory) -> set[str]:
    db = tmp_path_factory.mktemp("layers") / "quiz.sqlite3"
    app = quizapp.create_app({"TESTING": True, "DATABASE_URL": f"sqlite:///{db}"})
    packages = set()
    for bp in app.blueprints.values():
        parts = bp.import_name.split(".")
        if parts[0] == "quizapp" and len(parts) > 1 and _is_package(".".join(parts[:2])):
            packages.add(".".join(parts[:2]))
    return packages


def test_the_app_has_several_blueprint_packages(blueprint_packages):
    # the scan below means something only if it finds the feature packages (and not the shared layer)
    assert {"quizapp.api", "quizapp.web", "quizapp.learning", "quizapp.accounts"} <= blueprint_packages
    assert SHARED not in blueprint_packages


def test_no_blueprint_package_imports_another(blueprint_packages):
    offenders = []
    for path in _sources():
        home = _package_of(_module_name(path), blueprint_packages)
        if home is None:
            continue
        for module in sorted(_imports(path)):
            other = _package_of(module, blueprint_packages)
            if other is not None and other != home:
                offenders.append(f"{path.relative_to(ROOT.parent)} imports {module}")
    assert offenders == []


def test_the_shared_layer_imports_no_blueprint(blueprint_packages):
    shared = [p for p in _sources() if _module_name(p).startswith(SHARED)]
    assert shared
    offenders = [f"{p.name} imports {m}" for p in shared for m in sorted(_imports(p))
                 if _package_of(m, blueprint_packages)]
    assert offenders == []


def test_every_blueprint_package_uses_the_shared_layer(blueprint_packages):
    for package in sorted(blueprint_packages):
        folder = ROOT / package.split(".")[1]
        used = set().union(*(_imports(p) for p in folder.rglob("*.py")))
        assert any(m == SHARED or m.startswith(SHARED + ".") for m in used), package


def test_no_module_keeps_a_private_copy_of_a_shared_helper():
    copies = []
    for path in _sources():
        if _module_name(path).startswith(SHARED):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        methods = {id(n) for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for n in c.body}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in SHARED_NAMES \
                    and id(node) not in methods:
                copies.append(f"{path.relative_to(ROOT.parent)}: def {node.name}")
    assert copies == []


def _builds_error_envelope(node: ast.AST) -> bool:
    """``{"error": {"code": ..., ...}}`` written out: the envelope built by hand."""
    if not isinstance(node, ast.Dict):
        return False
    for key, value in zip(node.keys, node.values):
        if isinstance(key, ast.Constant) and key.value == "error" and isinstance(value, ast.Dict):
            inner = {k.value for k in value.keys if isinstance(k, ast.Constant)}
            if "code" in inner:
                return True
    return False


def test_blueprints_answer_errors_with_the_shared_envelope(blueprint_packages):
    """A blueprint's JSON error is :func:`quizapp.httpkit.errors.envelope` (or a raised ServiceError), never
    the envelope written out again."""
    by_hand = []
    for path in _sources():
        if _package_of(_module_name(path), blueprint_packages) is None:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if _builds_error_envelope(node):
                by_hand.append(f"{path.relative_to(ROOT.parent)}:{node.lineno}")
    assert by_hand == []


def test_every_api_route_is_described_by_its_own_blueprint(app):
    """Each blueprint that serves ``/api/v1`` routes contributes the fragment describing them, so the merged
    document owes nothing to another blueprint's module."""
    described: dict[str, set[str]] = {}
    for name, bp in app.blueprints.items():
        for fragment in shared_openapi.fragments([bp]):
            described[name] = set(fragment.paths)
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/v1/"):
            continue
        blueprint = rule.endpoint.rpartition(".")[0]
        path = rule.rule
        for arg in rule.arguments:
            path = path.replace(f"<{arg}>", f"{{{arg}}}")
            path = path.replace(f"<int:{arg}>", f"{{{arg}}}")
        assert path in described.get(blueprint, set()), (rule.endpoint, path)
