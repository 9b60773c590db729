"""The server freezes the heap it starts with: the app, sympy, torch and the bank are moved to the
collector's permanent generation before gunicorn forks its workers (or the worker builds its own app, or
waitress serves), so that a full collection in a worker walks only what was made since, not everything
(a walk that held the interpreter lock for tens of milliseconds, stopping every request of the worker)."""

from __future__ import annotations

import gc

import pytest

from quizapp import serving


@pytest.fixture
def frozen_counts(monkeypatch):
    """Serve without serving: record how many objects are frozen when the server would start."""
    seen = []
    monkeypatch.setenv("QUIZ_LOG_JSON", "0")
    monkeypatch.setattr(serving.metrics, "enable_multiprocess", lambda _folder: None)
    gc.unfreeze()
    yield seen
    gc.unfreeze()  # the test process keeps collecting everything, as before


def test_gunicorn_master_freezes_before_forking(app, frozen_counts, monkeypatch):
    from gunicorn.app.base import BaseApplication

    monkeypatch.setattr(BaseApplication, "run", lambda self: frozen_counts.append(gc.get_freeze_count()))
    assert gc.get_freeze_count() == 0
    serving.serve_gunicorn(app, host="127.0.0.1", port=1, workers=1, threads=1, announce=lambda _line: None)
    assert len(frozen_counts) == 1 and frozen_counts[0] > 10_000  # the app and everything it imported


def test_waitress_freezes_before_serving(app, frozen_counts, monkeypatch):
    import waitress

    class _Server:
        def run(self):
            frozen_counts.append(gc.get_freeze_count())

    monkeypatch.setattr(waitress, "create_server", lambda *_a, **_k: _Server())
    serving.serve_waitress(app, host="127.0.0.1", port=1, threads=1, announce=lambda _line: None)
    assert len(frozen_counts) == 1 and frozen_counts[0] > 10_000
