"""The server compiles every template before it serves (quizapp.serving.warm_templates): a worker forked
from the master renders its first page without compiling anything, and a later start loads the compiled
code from the instance folder instead of compiling again."""

from __future__ import annotations

import gc

import pytest

import quiz_testing as testing
from quizapp import serving
from quizapp.config import TEMPLATE_CACHE_DIR


def _compiled(app) -> set[str]:
    return {key[1] for key in app.jinja_env.cache.keys()}


@pytest.fixture
def no_serving_side_effects(monkeypatch):
    monkeypatch.setenv("QUIZ_LOG_JSON", "0")
    monkeypatch.setattr(serving.metrics, "enable_multiprocess", lambda _folder: None)
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_the_master_compiles_every_template_before_forking(app, tmp_path, no_serving_side_effects, monkeypatch):
    from gunicorn.arbiter import Arbiter  # the master's loop, which forks the workers

    app.instance_path = str(tmp_path / "instance")  # the compiled templates are kept under the test's folder

    compiled_at_fork = []
    monkeypatch.setattr(Arbiter, "run", lambda self: compiled_at_fork.append(_compiled(app)))
    assert not set(app.jinja_env.list_templates()) <= _compiled(app)
    serving.serve_gunicorn(app, host="127.0.0.1", port=1, workers=1, threads=1, announce=lambda _line: None)
    [compiled] = compiled_at_fork
    assert set(app.jinja_env.list_templates()) <= compiled
    assert {"web/question.html", "web/base.html", "kinds/numeric/partial.html"} <= compiled

    # a page now compiles nothing (what a forked worker inherits)
    def no_compiling(*_args, **_kwargs):
        raise AssertionError("a template was compiled while serving")

    monkeypatch.setattr(app.jinja_env, "compile", no_compiling)
    page = app.test_client().get(f"/questions/{testing.SAMPLE_QUESTION['id']}?variant=2")
    assert page.status_code == 200 and b"quiz-form" in page.data


def test_a_later_start_loads_the_compiled_templates(tmp_path, monkeypatch):
    first = testing.make_app(tmp_path, migrate=False)
    first.instance_path = str(tmp_path / "instance")
    serving.warm_templates(first)
    kept = list((tmp_path / "instance" / TEMPLATE_CACHE_DIR).iterdir())
    assert len(kept) == len(first.jinja_env.list_templates())
    assert first.jinja_env.bytecode_cache is None  # requests never write to the folder

    second = testing.make_app(tmp_path, migrate=False)
    second.instance_path = str(tmp_path / "instance")
    compiled = []
    original = second.jinja_env.compile
    monkeypatch.setattr(second.jinja_env, "compile", lambda *a, **k: compiled.append(1) or original(*a, **k))
    serving.warm_templates(second)
    assert compiled == [] and set(second.jinja_env.list_templates()) <= _compiled(second)


def test_a_folder_that_cannot_be_written_only_loses_the_disk_copy(tmp_path):
    app = testing.make_app(tmp_path, migrate=False)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")  # the instance "folder" is a file: the cache folder cannot be made
    app.instance_path = str(blocker)
    serving.warm_templates(app)
    assert set(app.jinja_env.list_templates()) <= _compiled(app) and app.jinja_env.bytecode_cache is None
