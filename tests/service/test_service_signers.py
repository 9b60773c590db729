"""Cookie signers kept per secret key (quizapp.httpkit.signers): Flask's session cookie and the learner cookie
are what Flask's and itsdangerous' own signers write and accept, and the signer is made once, not per request."""

import hmac

import pytest
from flask import Flask, session
from flask.sessions import SecureCookieSessionInterface
from itsdangerous import BadSignature, URLSafeSerializer

from quizapp.httpkit import signers
from quizapp.learner_cookie import SALT, LearnerSerializer


def _app(interface, key="current", fallbacks=()):
    app = Flask(__name__)
    app.secret_key = key
    app.config["SECRET_KEY_FALLBACKS"] = list(fallbacks)
    app.session_interface = interface

    @app.post("/set")
    def set_value():
        session["who"] = "learner-1"
        return "ok"

    @app.get("/get")
    def get_value():
        return session.get("who", "-")

    return app


def _cookie(app) -> str:
    client = app.test_client()
    client.post("/set")
    return client.get_cookie("session").value


@pytest.mark.parametrize("writer, reader", [("ours", "flask"), ("flask", "ours"), ("ours", "ours")])
def test_the_session_cookie_is_flasks(writer, reader):
    make = {"ours": signers.KeptSignerSessionInterface, "flask": SecureCookieSessionInterface}
    cookie = _cookie(_app(make[writer]()))
    client = _app(make[reader]()).test_client()
    client.set_cookie("session", cookie)
    assert client.get("/get").get_data(as_text=True) == "learner-1"
    client.set_cookie("session", cookie[:-2] + ("AA" if not cookie.endswith("AA") else "BB"))
    assert client.get("/get").get_data(as_text=True) == "-"  # a forged signature is an empty session


def test_a_rotated_key_still_reads_and_a_changed_key_does_not():
    old = _cookie(_app(signers.KeptSignerSessionInterface(), key="old"))
    interface = signers.KeptSignerSessionInterface()
    rotated = _app(interface, key="new", fallbacks=["old"]).test_client()
    rotated.set_cookie("session", old)
    assert rotated.get("/get").get_data(as_text=True) == "learner-1"
    other = _app(interface, key="new").test_client()  # the same interface, another key set
    other.set_cookie("session", old)
    assert other.get("/get").get_data(as_text=True) == "-"


def test_the_signer_and_its_key_are_made_once(monkeypatch):
    derived = []
    real = hmac.new

    def counted(*args, **kwargs):
        derived.append(1)
        return real(*args, **kwargs)

    ours = LearnerSerializer("secret", salt=SALT)
    cookies = [ours.dumps(f"{i:032x}") for i in range(3)]  # first use: the signer and its key are made
    monkeypatch.setattr("itsdangerous.signer.hmac.new", counted)
    made = []
    monkeypatch.setattr(signers.KeptKeySigner, "__init__",
                        lambda self, *a, **k: made.append(1) or signers.Signer.__init__(self, *a, **k))
    for i in range(50):
        assert ours.loads(ours.dumps(f"{i:032x}")) == f"{i:032x}"
    assert made == []  # no new signer
    assert len(derived) == 100  # one HMAC per signature made or checked; none to derive the key again
    theirs = URLSafeSerializer("secret", salt=SALT)
    assert [theirs.loads(c) for c in cookies] == [f"{i:032x}" for i in range(3)]
    with pytest.raises(BadSignature):
        ours.loads(URLSafeSerializer("other", salt=SALT).dumps("0" * 32))
