"""The attempt service and the study rules below it never climb back to their callers: quizapp.services and
quizapp.study import nothing from the practice, learning or API packages, nor from any package with a blueprint
or any module that imports them (read from the sources' syntax trees, function-local imports included);
quizapp.study does not import quizapp.services; quizapp.grading_backends, below the services, imports none of
them; and a submit takes no callback from its caller."""

from __future__ import annotations

import inspect
from pathlib import Path

import import_graph
import quizapp
from quizapp.services import attempts

ROOT = Path(quizapp.__file__).parent
LOWER = ("quizapp.services", "quizapp.study")
NAMED = ("quizapp.practice", "quizapp.learning", "quizapp.api")
CALLED = ("quizapp.services.attempts", "quizapp.study")  # who imports these calls the attempt flow


def _module_name(path: Path) -> str:
    return import_graph.module_name(path, ROOT)


def _imports(path: Path) -> set[str]:
    return import_graph.imports(path, ROOT)


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _top(module: str) -> str:
    """``quizapp.x`` of a module ``quizapp.x...``: the package (or top-level module) it belongs to."""
    return ".".join(module.split(".")[:2])


def _sources() -> dict[str, Path]:
    return {_module_name(p): p for p in ROOT.rglob("*.py")}


def _forbidden(sources: dict[str, Path]) -> set[str]:
    """The packages the lower layers must not import: the three the issue names, every package (or top-level
    module) that defines a blueprint, and every one that calls the attempt service or the study rules."""
    out = set(NAMED)
    for name, path in sources.items():
        if any(_within(name, low) for low in LOWER):
            continue
        text = path.read_text(encoding="utf-8")
        if "Blueprint(" in text or any(_within(m, low) for m in _imports(path) for low in CALLED):
            out.add(_top(name))
    return out


def test_the_checker_sees_relative_and_local_imports():
    """The reader the layer test relies on resolves what the service's own modules import."""
    seen = _imports(ROOT / "services" / "attempts.py")
    assert {"quizapp.study", "quizapp.study.review", "quizapp.errors", "checkers.kinds"} <= seen
    assert "quizapp.services.answers" in seen  # from .answers import ...
    local = _imports(ROOT / "services" / "questions.py")
    assert "quizapp.services.question_cache" in local  # imported inside a function


def test_services_and_study_import_nothing_from_their_callers():
    sources = _sources()
    forbidden = _forbidden(sources)
    assert {"quizapp.practice", "quizapp.learning", "quizapp.api", "quizapp.web", "quizapp.mock"} <= forbidden
    climbing = sorted(f"{name} imports {module}"
                      for name, path in sources.items() if any(_within(name, low) for low in LOWER)
                      for module in _imports(path)
                      if _within(module, "quizapp") and _top(module) in forbidden)
    assert climbing == []


def test_study_sits_below_the_attempt_service():
    sources = _sources()
    upward = sorted(f"{name} imports {module}" for name, path in sources.items() if _within(name, "quizapp.study")
                    for module in _imports(path) if _within(module, "quizapp.services"))
    assert upward == []


def test_a_submit_takes_no_callback_from_its_caller():
    for function in (attempts.submit_attempt, attempts.prepare_attempt, attempts.store_attempt):
        callables = [name for name, p in inspect.signature(function).parameters.items()
                     if "Callable" in str(p.annotation)]
        assert callables == [], (function.__name__, callables)


def test_a_submit_looks_each_kind_up_once_per_part(app, client, monkeypatch):
    """The attempt service looks the parts' kinds up once and passes them to the shape checks, the weights,
    the grading (backend choice and the checkers' facade), the attempt policy and the review rating, which
    look none up again."""
    import quiz_testing as testing
    from checkers import grading
    from quizapp import grading_backends
    from quizapp.study import policy, review

    parts = [p["id"] for p in testing.SAMPLE_QUESTION["parts"]]
    url = f"/api/v1/questions/{testing.SAMPLE_QUESTION['id']}/attempts"
    assert client.post(url, json={"variant": 1, "answers": {"a": "0", "b": "yes"}}).status_code == 201
    looked_up: list[str] = []

    def counting(module, name):
        original = getattr(module, name)

        def lookup(kind):
            looked_up.append(kind)
            return original(kind)

        monkeypatch.setattr(module, name, lookup)

    counting(attempts, "get_kind")
    counting(policy, "get_kind")
    counting(review, "find_kind")
    counting(grading_backends, "find_kind")
    counting(grading, "get_kind")
    r = client.post(url, json={"variant": 1, "answers": {"a": "0", "b": "yes"}})
    assert r.status_code == 201 and r.get_json()["review"] is not None  # the card was rated too
    assert sorted(looked_up) == sorted(p["kind"] for p in testing.SAMPLE_QUESTION["parts"])
    assert len(looked_up) == len(parts)


def test_the_grading_backends_sit_below_the_services():
    """The attempt service calls quizapp.grading_backends; the backends import nothing of quizapp.services
    (the JSON conversion they share, json_safe, lives in quizapp.httpkit.jsonio, below both)."""
    sources = _sources()
    backends = {name: path for name, path in sources.items() if _within(name, "quizapp.grading_backends")}
    assert len(backends) >= 3
    climbing = {name: sorted(m for m in _imports(path) if _within(m, "quizapp.services"))
                for name, path in backends.items()}
    assert {name: found for name, found in climbing.items() if found} == {}
    assert any(_within(m, "quizapp.grading_backends") for m in _imports(sources["quizapp.services.attempts"]))
