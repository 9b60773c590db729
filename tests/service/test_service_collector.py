"""The server sets the garbage collector before it serves (quizapp.serving.tune_collector): the heap it
starts with (the app, sympy, torch, the bank) is frozen before gunicorn forks its workers or waitress serves,
so that a full collection in a worker walks only what was made since, and the youngest generation is
collected after GC_YOUNG_THRESHOLD allocations, so that a request's objects die young."""

from __future__ import annotations

import gc

import pytest

from quizapp import serving
from quizapp.config import GC_YOUNG_THRESHOLD


@pytest.fixture
def frozen_counts(app, tmp_path, monkeypatch):
    """Serve without serving: record how many objects are frozen when the server would start."""
    seen = []
    app.instance_path = str(tmp_path / "instance")  # where the server keeps its compiled templates
    monkeypatch.setenv("QUIZ_LOG_JSON", "0")
    monkeypatch.setattr(serving.metrics, "enable_multiprocess", lambda _folder: None)
    threshold = gc.get_threshold()
    gc.unfreeze()
    yield seen
    gc.unfreeze()  # the test process keeps collecting everything, as before
    gc.set_threshold(*threshold)


def _seen() -> tuple[int, int]:
    return gc.get_freeze_count(), gc.get_threshold()[0]


def test_gunicorn_master_freezes_before_forking(app, frozen_counts, monkeypatch):
    from gunicorn.arbiter import Arbiter  # the master's loop, which forks the workers

    monkeypatch.setattr(Arbiter, "run", lambda self: frozen_counts.append(_seen()))
    assert gc.get_freeze_count() == 0 and gc.get_threshold()[0] != GC_YOUNG_THRESHOLD
    serving.serve_gunicorn(app, host="127.0.0.1", port=1, workers=1, threads=1, announce=lambda _line: None)
    [(frozen, young)] = frozen_counts
    assert frozen > 10_000 and young == GC_YOUNG_THRESHOLD  # the app and everything it imported


def test_waitress_freezes_before_serving(app, frozen_counts, monkeypatch):
    import waitress

    class _Server:
        def run(self):
            frozen_counts.append(_seen())

    monkeypatch.setattr(waitress, "create_server", lambda *_a, **_k: _Server())
    serving.serve_waitress(app, host="127.0.0.1", port=1, threads=1, announce=lambda _line: None)
    [(frozen, young)] = frozen_counts
    assert frozen > 10_000 and young == GC_YOUNG_THRESHOLD
