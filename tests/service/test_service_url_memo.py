"""Relative addresses are built once per worker (quizapp.url_memo): the memo answers exactly what Flask
builds, for the endpoint, its arguments, the blueprint of a relative endpoint and where the app is mounted,
leaves alone what it cannot be sure of, and stays bounded."""

from __future__ import annotations

from flask import Blueprint, Flask

from quizapp import url_memo
from quizapp.url_memo import MemoizedUrlFlask


def _app() -> MemoizedUrlFlask:
    app = MemoizedUrlFlask(__name__)
    for name in ("one", "two"):
        bp = Blueprint(name, __name__, url_prefix=f"/{name}")
        bp.add_url_rule("/item/<int:n>", "item", lambda n: str(n))
        app.register_blueprint(bp)
    app.add_url_rule("/q/<qid>", "question", lambda qid: qid)
    return app


def test_memo_answers_what_flask_builds_wherever_the_app_is_mounted():
    app = _app()
    assert app.url_default_functions["one"] == []  # a name without URL-default functions keeps the memo on
    cases = [("question", {"qid": "kl-1"}), ("question", {"qid": "kl 1/2"}), ("question", {"qid": "a", "variant": 3}),
             ("one.item", {"n": 4}), ("static", {"filename": "quiz.css"})]
    for root in ("", "/quiz"):
        with app.test_request_context("/", base_url=f"http://localhost{root}/"):
            for _ in range(2):  # built, then answered from the memo
                for endpoint, values in cases:
                    assert app.url_for(endpoint, **values) == Flask.url_for(app, endpoint, **values)
            assert app.url_for("question", qid="x") == f"{root}/q/x"
    assert len(app._url_memo) == 2 * (len(cases) + 1)  # per mount point: each case and "x"


def test_relative_endpoints_follow_the_requests_blueprint():
    app = _app()
    with app.test_request_context("/one/item/1"):
        first = app.url_for(".item", n=1)
    with app.test_request_context("/two/item/1"):
        second = app.url_for(".item", n=1)
    assert (first, second) == ("/one/item/1", "/two/item/1")


def test_what_it_cannot_be_sure_of_is_built_each_time():
    app = _app()
    with app.test_request_context("/"):
        assert app.url_for("question", qid="x", _external=True) == "http://localhost/q/x"
        assert app.url_for("question", qid="x", _anchor="part-a") == "/q/x#part-a"
        assert app.url_for("question", qid="x", tag=["a", "b"]) == "/q/x?tag=a&tag=b"
    assert app._url_memo == {}
    # a URL-default function may add arguments from the request: nothing is kept while one is registered
    app.url_defaults(lambda endpoint, values: values.setdefault("lang", "zh"))
    with app.test_request_context("/"):
        assert app.url_for("question", qid="x") == "/q/x?lang=zh"
    assert app._url_memo == {}
    outside = _app()
    outside.config["SERVER_NAME"] = "quiz.example"
    with outside.app_context():  # outside a request Flask builds absolute addresses: never from the memo
        assert outside.url_for("question", qid="x") == "http://quiz.example/q/x"
    assert outside._url_memo == {}


def test_the_memo_stays_bounded(monkeypatch):
    monkeypatch.setattr(url_memo, "URL_MEMO_SIZE", 5)
    app = _app()
    with app.test_request_context("/"):
        for i in range(23):  # arguments a client chooses (a ?next= path) must not grow it without end
            assert app.url_for("question", qid=f"q{i}") == f"/q/q{i}"
            assert len(app._url_memo) <= 5
